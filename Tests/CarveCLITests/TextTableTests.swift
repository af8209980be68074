@testable import CarveCLI
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
}
