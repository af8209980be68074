@testable import CarveCLI
import CarveTestSupport
import Testing

/// The text table lays cells out by the characters they show, whatever their bytes.
@Suite struct TextTableTests {
    @Test func columnsAreAsWideAsTheirWidestCellInCharacters() {
        var table = TextTable(headers: ["NAME", "N", "LAST"], rightAligned: [false, true, false])
        table.rows = [["é", "7", "x"], ["日本語", "12", ""], ["a\r\nb", "3", "y"], ["ab", "100", "z"]]
        // "a\r\nb" is three characters (CR LF is one), "日本語" three, "é" one.
        #expect(
            table.rendered()
                == "NAME   N LAST\n" + "é      7 x\n" + "日本語   12\n" + "a\r\nb    3 y\n" + "ab   100 z\n")
    }

    @Test func aCellOfSeveralLinesTakesSeveralLinesAndTheHeaderSetsTheWidthWithoutHeadings() {
        var table = TextTable(headers: ["NAME", "MOUNTPOINTS"], rightAligned: [false, false])
        table.rows = [["sda1", "/a\n/bb"], ["sda2", ""]]
        table.omitsHeader = true
        table.padsTrailingCells = true
        #expect(table.rendered() == "sda1 /a\n     /bb\nsda2 \n")
    }

    /// A cell wider than the layout keeps in its note of widths is measured again, not cut.
    @Test func aCellOfSeventyThousandColumnsIsLaidOutWhole() {
        let wide = String(repeating: "a", count: 70_000)
        var table = TextTable(headers: ["NAME", "N"], rightAligned: [false, true])
        table.rows = [["x", "1"], [wide, "22"]]
        #expect(
            table.rendered()
                == "NAME" + String(repeating: " ", count: 69_996) + "  N\n" + "x"
                + String(repeating: " ", count: 69_999)
                + "  1\n" + wide + " 22\n")
    }

    /// A cell's measure, taken eight bytes at a time, is what counting it the plain way
    /// gives: its characters (its bytes when they are ASCII without "\r"), and whether a
    /// "\n" byte is in it; on every length around the word's, every kind of byte at every place.
    @Test func aCellIsMeasuredAsCountingItsCharactersAndLookingForLineBreaksWould() {
        let pieces = ["a", "Z", " ", "é", "日", "\r", "\n", "\r\n", "\u{7F}", "\u{1}", "~"]
        var random = SplitMix(seed: 33)
        for length in 0...40 {
            for _ in 0..<25 {
                let text = (0..<length).map { _ in pieces.randomElement(using: &random)! }.joined()
                let plain = text.utf8.allSatisfy { $0 < 0x80 && $0 != 0x0D }
                let measure = CellMeasure(text)
                #expect(measure.width == (plain ? text.utf8.count : text.count), "\(Array(text.utf8))")
                #expect(measure.breaksLine == text.utf8.contains(0x0A), "\(Array(text.utf8))")
                #expect(displayWidth(text) == measure.width)
            }
        }
    }

    /// The table kept as bytes lays out what the plain reading of its rules gives, cell by
    /// cell as strings: random tables of ASCII, wide and combined characters, empty cells,
    /// cells of several lines, with and without lsblk's padding and width hints.
    @Test func aTableOfRandomCellsIsLaidOutAsItsRulesSay() {
        let pieces = ["a", "bb", "é", "日本", " ", "x\ny", "\n", "e\u{301}", "-", "12345678901234567", ""]
        var random = SplitMix(seed: 71)
        for _ in 0..<300 {
            let columns = Int.random(in: 1...4, using: &random)
            let headers = (0..<columns).map { ["NAME", "N", "LONGER-HEADER", "é"][$0 % 4] }
            let right = (0..<columns).map { _ in Bool.random(using: &random) }
            let rows = (0..<Int.random(in: 0...6, using: &random)).map { _ in
                (0..<columns).map { _ in
                    (0..<Int.random(in: 0...3, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                        .joined()
                }
            }
            var table = TextTable(headers: headers, rightAligned: right)
            table.rows = rows
            table.padsTrailingCells = Bool.random(using: &random)
            table.omitsHeader = Bool.random(using: &random)
            table.widthHints = (0..<columns).map { _ in Int.random(in: 0...6, using: &random) }
            #expect(table.rows == rows)
            #expect(table.rendered() == Self.reference(table, rows: rows), "\(rows)")
        }
    }

    /// lsblk's layout read plainly: widths in characters over every printed line and the
    /// header, cells padded, one space between, the last cell unpadded.
    static func reference(_ table: TextTable, rows: [[String]]) -> String {
        func lines(_ row: [String]) -> [[String]] {
            let split = row.map { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
            let height = split.map(\.count).max() ?? 1
            return (0..<height).map { line in split.map { line < $0.count ? $0[line] : "" } }
        }
        let printed = rows.flatMap(lines)
        var widths = table.headers.indices.map { column in printed.map { $0[column].count }.max() ?? 0 }
        for (index, header) in table.headers.enumerated() {
            let hint = table.padsTrailingCells ? table.widthHints[index] : 0
            if widths[index] < header.count {
                widths[index] = header.count
            } else if widths[index] < hint && header.count < hint {
                widths[index] = hint
            }
        }
        var text = ""
        for line in (table.omitsHeader ? [] : lines(table.headers)) + printed {
            var out = ""
            for (index, cell) in line.enumerated() {
                let last = index == line.count - 1
                let padding = String(repeating: " ", count: max(0, widths[index] - cell.count))
                if last && cell.isEmpty && table.padsTrailingCells {
                } else if table.rightAligned[index] {
                    out += padding + cell
                } else {
                    out += cell + (last ? "" : padding)
                }
                if !last { out += " " }
            }
            if !table.padsTrailingCells { while out.hasSuffix(" ") { out.removeLast() } }
            text += out + "\n"
        }
        return text
    }
}
