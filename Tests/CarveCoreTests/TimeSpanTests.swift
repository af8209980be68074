import CarveCore
import PropertyBased
import Testing

@Suite struct TimeSpanTests {
    @Test(arguments: [
        ("90m", Int64(5_400)), ("36h", 129_600), ("30d", 2_592_000), ("8w", 4_838_400), ("45s", 45), ("0d", 0),
        (" 2d ", 172_800),
    ])
    func acceptsDocumentedForms(text: String, seconds: Int64) throws {
        #expect(try TimeSpan.parse(text).seconds == seconds)
    }

    @Test(arguments: ["30", "-3d", "3x", "", "d", "1.5d", "3 d", "99999999999999999999d", "9999999999999999w",
                      "0x10d", "+3d", "3dd", "３d", "1e3s"])
    func rejectsMalformedInputNamingIt(text: String) {
        #expect {
            try TimeSpan.parse(text)
        } throws: { error in
            guard let error = error as? UsageError else { return false }
            return error.message.hasPrefix("invalid duration '\(text)'") && !error.message.contains("\n")
        }
    }

    @Test func describesWithTheLargestExactUnit() {
        #expect(TimeSpan(seconds: 172_800).description == "2d")
        #expect(TimeSpan(seconds: 5_400).description == "90m")
        #expect(TimeSpan(seconds: 1_209_600).description == "2w")
        #expect(TimeSpan(seconds: 61).description == "61s")
    }

    @Test func everyCountAndUnitParsesToItsProduct() async {
        let units: [(String, Int64)] = [("s", 1), ("m", 60), ("h", 3_600), ("d", 86_400), ("w", 604_800)]
        await propertyCheck(input: Gen.int64(in: 0...5_000_000_000), Gen.int(in: 0...4)) { count, unitIndex in
            let (suffix, multiplier) = units[unitIndex]
            let parsed = try? TimeSpan.parse("\(count)\(suffix)")
            let (product, overflow) = count.multipliedReportingOverflow(by: multiplier)
            if overflow || product > TimeSpan.maximumSeconds {
                #expect(parsed == nil)
            } else {
                #expect(parsed?.seconds == product)
            }
        }
    }

    @Test func descriptionsParseBack() async {
        await propertyCheck(input: Gen.int64(in: 0...TimeSpan.maximumSeconds)) { seconds in
            let span = TimeSpan(seconds: seconds)
            #expect((try? TimeSpan.parse(span.description)) == span)
        }
    }

    @Test func arbitraryTextNeverCrashesAndFailsWithOneLine() async {
        await propertyCheck(input: Gen.latin1.string(of: 0...12)) { text in
            do {
                let span = try TimeSpan.parse(text)
                #expect(span.seconds >= 0)
            } catch {
                let message = (error as? UsageError)?.message ?? ""
                #expect(message.hasPrefix("invalid duration") && !message.contains("\n"))
            }
        }
    }
}
