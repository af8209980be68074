import CarveCore
import Foundation
import PropertyBased
import Testing

@Suite struct DateArgumentTests {
    let utc = TimeZone(identifier: "UTC")!
    let berlin = TimeZone(identifier: "Europe/Berlin")!

    func date(_ seconds: TimeInterval) -> Date { Date(timeIntervalSince1970: seconds) }

    @Test func acceptsTheDocumentedForms() throws {
        // 2026-11-01T00:00:00Z is 1793491200.
        #expect(try DateArgument.parse("2026-11-01", timeZone: utc) == date(1_793_491_200))
        #expect(try DateArgument.parse("2026-11-01 12:00", timeZone: utc) == date(1_793_534_400))
        #expect(try DateArgument.parse("2026-11-01T12:00:30", timeZone: utc) == date(1_793_534_430))
        #expect(try DateArgument.parse("2026-11-01T12:00:00Z", timeZone: berlin) == date(1_793_534_400))
        #expect(try DateArgument.parse("2026-11-01T12:00:00+02:00", timeZone: utc) == date(1_793_527_200))
        #expect(try DateArgument.parse("2026-11-01T12:00:00-0530", timeZone: utc) == date(1_793_554_200))
    }

    @Test func noOffsetMeansLocalTime() throws {
        // Berlin is UTC+1 on 1 November (after the DST change).
        #expect(try DateArgument.parse("2026-11-01", timeZone: berlin) == date(1_793_491_200 - 3_600))
        #expect(
            try DateArgument.parse("2026-07-01 12:00", timeZone: berlin)
                == DateArgument.parse("2026-07-01T10:00Z", timeZone: utc))
    }

    @Test(arguments: [
        "", "2026", "2026-11", "2026-13-01", "2026-02-30", "2025-02-29", "2026-11-01 25:00",
        "2026-11-01 12:60", "2026-11-01 12:00:61", "2026-11-01T12", "2026-11-01 12:00 UTC",
        "2026-11-01T12:00:00+25:00", "01-11-2026", "2026/11/01", "yesterday", "2026-11-01x",
        "2026-11-01T12:00:00+0", "-2026-11-01", "2026-1-1",
    ])
    func rejectsMalformedInputNamingIt(text: String) {
        #expect {
            try DateArgument.parse(text, timeZone: utc)
        } throws: { error in
            guard let error = error as? UsageError else { return false }
            return error.message.hasPrefix("invalid date '\(text)'") && !error.message.contains("\n")
        }
    }

    @Test func leapDaysAreDays() throws {
        #expect(try DateArgument.parse("2024-02-29", timeZone: utc) == date(1_709_164_800))
        #expect(try DateArgument.parse("2000-02-29", timeZone: utc) == date(951_782_400))
    }

    @Test func everyUTCTimestampRoundTripsThroughItsISOForm() async {
        let formatter = ISO8601DateFormatter()
        await propertyCheck(input: Gen.int64(in: 0...4_102_444_799)) { seconds in
            let instant = Date(timeIntervalSince1970: TimeInterval(seconds))
            let text = formatter.string(from: instant.foundation)
            #expect((try? DateArgument.parse(text, timeZone: berlin)) == instant)
        }
    }

    @Test func offsetsShiftTheInstantByExactlyTheOffset() async {
        await propertyCheck(input: Gen.int(in: -(18 * 60)...(18 * 60)), Gen.int64(in: 0...4_000_000_000)) {
            minutes, base in
            let sign = minutes < 0 ? "-" : "+"
            let hh = abs(minutes) / 60, mm = abs(minutes) % 60
            let offset = sign + (hh < 10 ? "0" : "") + "\(hh):" + (mm < 10 ? "0" : "") + "\(mm)"
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = Foundation.TimeZone(identifier: "UTC")!
            let parts = calendar.dateComponents(
                [.year, .month, .day, .hour, .minute, .second],
                from: Foundation.Date(timeIntervalSince1970: TimeInterval(base)))
            func pad(_ v: Int?, _ n: Int) -> String {
                let s = String(v ?? 0); return String(repeating: "0", count: max(0, n - s.count)) + s
            }
            let local =
                "\(pad(parts.year, 4))-\(pad(parts.month, 2))-\(pad(parts.day, 2))T\(pad(parts.hour, 2)):\(pad(parts.minute, 2)):\(pad(parts.second, 2))"
            let parsed = try? DateArgument.parse(local + offset, timeZone: berlin)
            #expect(parsed == Date(timeIntervalSince1970: TimeInterval(base - Int64(minutes * 60))))
        }
    }

    @Test func arbitraryTextNeverCrashes() async {
        await propertyCheck(input: Gen.latin1.string(of: 0...24)) { text in
            do {
                _ = try DateArgument.parse(text, timeZone: utc)
            } catch {
                let message = (error as? UsageError)?.message ?? ""
                #expect(message.hasPrefix("invalid date") && !message.contains("\n"))
            }
        }
    }

    /// Found by the property below: 03:03 on the morning Chatham's DST ended (2024-04-07)
    /// came twice; the text without an offset names either instant.
    @Test func aLocalTimeShownTwiceParsesToOneOfItsInstants() throws {
        let zone = TimeZone(identifier: "Pacific/Chatham")!
        let instant = Date(timeIntervalSince1970: 1_712_409_518)
        let short = DateText.short(instant, timeZone: zone)
        let parsed = try DateArgument.parse(short, timeZone: zone)
        #expect(DateText.short(parsed, timeZone: zone) == short)
        let apart = abs(parsed.timeIntervalSince(instant))
        #expect(apart < 60 || abs(apart - 3_600) < 60, "\(short): \(apart) s apart")
    }

    @Test func dateTextMatchesFoundationAndParsesBack() async {
        let zones = ["UTC", "Europe/Berlin", "Asia/Kolkata", "America/St_Johns", "Pacific/Chatham"].map {
            TimeZone(identifier: $0)!
        }
        // From 1970: older local mean times have offsets with seconds, which snapshots never carry.
        await propertyCheck(input: Gen.int64(in: 0...4_102_444_799), Gen.int(in: 0...4)) { seconds, zoneIndex in
            let zone = zones[zoneIndex]
            let instant = Date(timeIntervalSince1970: TimeInterval(seconds))
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = Foundation.TimeZone(identifier: zone.identifier)
            #expect(DateText.iso8601(instant, timeZone: zone) == formatter.string(from: instant.foundation))
            #expect((try? DateArgument.parse(DateText.iso8601(instant, timeZone: zone), timeZone: utc)) == instant)
            let short = DateText.short(instant, timeZone: zone)
            let parsed = try? DateArgument.parse(short, timeZone: zone)
            // A local time the clock shows twice (the hour after DST ends) names either
            // instant: the one parsed shows the same text, at the other offset.
            let ambiguous = parsed.map { zone.secondsFromGMT(for: $0) != zone.secondsFromGMT(for: instant) } ?? false
            #expect(parsed.map { DateText.short($0, timeZone: zone) } == short, "\(short)")
            #expect(
                parsed.map { abs($0.timeIntervalSince(instant)) < (ambiguous ? 3_660 : 60) } ?? false, "\(short)")
        }
    }
}
