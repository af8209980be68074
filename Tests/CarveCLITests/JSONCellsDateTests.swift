import CarveCore
@testable import CarveCLI
import CarveTestSupport
import Testing

/// The byte writer keeps a date's text for its second: every date it writes must
/// still be `DateText.iso8601` of that date, whatever came before it.
@Suite struct JSONCellsDateTests {
    /// A zone whose offset changes at a whole hour, as a daylight saving change does.
    static let shifting = TimeZone(identifier: "Test/Shifting") { $0 < 1_800_003_600 ? 3_600 : 7_200 }
    static let zones = [TimeZone.utc, TimeZone(secondsFromGMT: -34_200)!, shifting]

    @Test func everyDateIsWrittenAsItsOwnText() {
        var rng = SplitMix(seed: 11)
        let base = 1_800_003_590.0
        var dates: [(Date, TimeZone)] = []
        for _ in 0..<3_000 {
            // Runs within one second (fractions apart), steps across the zone's change,
            // back to an earlier second, and a change of zone at the same instant.
            let second = base + Double(Int.random(in: 0..<20, using: &rng))
            let fraction = [0, 0.25, 0.999_999][Int.random(in: 0..<3, using: &rng)]
            let zone = Self.zones[Int.random(in: 0..<(Int.random(in: 0..<4, using: &rng) == 0 ? 3 : 1), using: &rng)]
            let count = Int.random(in: 1..<4, using: &rng)
            dates += Array(repeating: (Date(timeIntervalSince1970: second + fraction), zone), count: count)
        }
        let writer = ByteWriter(capacity: 64)
        let cells = JSONCells(writingInto: writer, level: 0)
        for (date, zone) in dates {
            cells.date(date, timeZone: zone)
            let written = writer.takeText()
            #expect(written == "\"\(DateText.iso8601(date, timeZone: zone))\"", "\(date) in \(zone)")
        }
    }
}
