import CarveCore
import Foundation
import PropertyBased
import Testing

@Suite struct TimeSpanTests {
    @Test(arguments: [
        ("90min", TimeSpan(minutes: 90)), ("36h", TimeSpan(hours: 36)), ("30d", TimeSpan(days: 30)),
        ("8w", TimeSpan(weeks: 8)), ("6m", TimeSpan(months: 6)), ("1y", TimeSpan(years: 1)),
        ("1y6m", TimeSpan(years: 1, months: 6)), ("2w3d", TimeSpan(weeks: 2, days: 3)), ("0d", TimeSpan()),
        (" 2d ", TimeSpan(days: 2)), ("1d12h30min", TimeSpan(days: 1, hours: 12, minutes: 30)),
        ("6m1y", TimeSpan(years: 1, months: 6)),
    ])
    func acceptsWhatBackupToolsWrite(text: String, span: TimeSpan) throws {
        #expect(try TimeSpan.parse(text) == span)
    }

    /// The bad input and the old units that changed meaning or went away.
    @Test(arguments: [
        ("30", "no unit"), ("6", "no unit"), ("6mo", "unknown unit 'mo'"), ("1s", "seconds are not a unit"),
        ("45s", "seconds are not a unit"), ("-3d", "negative"), ("3x", "unknown unit 'x'"), ("", "empty"),
        ("d", "no number"), ("1.5d", "unknown unit '.'"), ("3 d", "unknown unit ' d'"),
        ("99999999999999999999d", "too large"), ("2000000d", "too large"), ("+3d", "no number"),
        ("3dd", "unknown unit 'dd'"),
        ("３d", "no number"), ("1d2d", "'d' given twice"), ("1e3d", "unknown unit 'e'"),
    ])
    func refusesMalformedInputInOneLineNamingIt(text: String, reason: String) {
        #expect {
            try TimeSpan.parse(text)
        } throws: { error in
            guard let error = error as? UsageError else { return false }
            return error.message.hasPrefix("invalid duration '\(text)'") && error.message.contains(reason)
                && error.message.contains("m months") && !error.message.contains("\n")
        }
    }

    @Test func descriptionsParseBack() async {
        let counts = Gen.int(in: 0...1_000)
        await propertyCheck(input: counts, counts, counts, counts, counts, counts) { y, m, w, d, h, min in
            let span = TimeSpan(years: y, months: m, weeks: w, days: d, hours: h, minutes: min)
            #expect((try? TimeSpan.parse(span.description)) == span || span.isZero)
        }
    }

    @Test func monthsAndYearsAreCalendarStepsNormalisedAsGoAndResticCount() throws {
        let utc = TimeZone(identifier: "UTC")!
        func at(_ y: Int, _ mo: Int, _ d: Int, _ h: Int = 0) -> Date {
            CivilTime(year: y, month: mo, day: d, hour: h).date(in: utc)
        }
        #expect(TimeSpan(months: 1).before(at(2026, 3, 15), in: utc) == at(2026, 2, 15))
        // March 31 minus a month is "February 31": March 3 (or 2 in a leap year).
        #expect(TimeSpan(months: 1).before(at(2026, 3, 31), in: utc) == at(2026, 3, 3))
        #expect(TimeSpan(months: 1).before(at(2028, 3, 31), in: utc) == at(2028, 3, 2))
        #expect(TimeSpan(years: 1).before(at(2028, 2, 29), in: utc) == at(2027, 3, 1))
        #expect(TimeSpan(years: 1, months: 6).before(at(2026, 11, 24), in: utc) == at(2025, 5, 24))
        #expect(TimeSpan(weeks: 2, days: 3).before(at(2026, 11, 24), in: utc) == at(2026, 11, 7))
        #expect(TimeSpan(hours: 36).before(at(2026, 11, 24), in: utc) == at(2026, 11, 22, 12))
    }

    @Test func daysKeepTheWallTimeAcrossDaylightSavingHoursDoNot() throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        // 2026-03-29: clocks go from 02:00 to 03:00 in Berlin.
        let after = CivilTime(year: 2026, month: 3, day: 29, hour: 12).date(in: berlin)
        #expect(after.timeIntervalSince(TimeSpan(days: 1).before(after, in: berlin)) == 23 * 3_600)
        #expect(after.timeIntervalSince(TimeSpan(hours: 24).before(after, in: berlin)) == 24 * 3_600)
    }

    @Test func arbitraryTextNeverCrashesAndFailsWithOneLine() async {
        await propertyCheck(input: Gen.latin1.string(of: 0...12)) { text in
            do {
                _ = try TimeSpan.parse(text)
            } catch {
                let message = (error as? UsageError)?.message ?? ""
                #expect(message.hasPrefix("invalid duration") && !message.contains("\n"))
            }
        }
    }
}
