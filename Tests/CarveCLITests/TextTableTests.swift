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
}
