import CarveCore
import Foundation
import Testing
@testable import CarveLinux
import CarveTestSupport

/// An attribute is trimmed on its bytes before it is decoded: the result must be what
/// trimming the decoded text by characters gives, whatever the blanks and marks.
@Suite struct SysfsAttributeTextTests {
    static let values: [String] = [
        "8:0\n", "  41943040 \n", "\t\r\n", "", "\n", " ", "QEMU HARDDISK   \n", "\r\n4096\r\n",
        // A space followed by a combining mark is one character, not a blank.
        " \u{301}x\n", "x \u{301}\n", "\u{301}\n",
        // A prepended mark joins the space after it: trimmed by characters, it stays.
        "x\u{600} \n", "\u{600}  ", " \u{600} x",
        // Blanks outside ASCII are trimmed as characters.
        "\u{00A0}model\u{00A0}\n", "\u{2028} x \u{3000}", "\u{85}y",
        "\u{0B}\u{0C}z\u{0B}\u{0C}", "日本 \n", " é ",
    ]

    @Test func textIsTheDecodedTextTrimmedByCharacters() throws {
        var files: [String: String] = [:]
        for (index, value) in Self.values.enumerated() { files["dev/a\(index)"] = value }
        let root = try Integration.makeTree(files)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let directory = try #require(SysfsDirectory(root + "/dev"))
        for (index, value) in Self.values.enumerated() {
            let trimmed = value.trimmingWhitespace
            #expect(directory.text("a\(index)") == (trimmed.isEmpty ? nil : trimmed), "\(value.debugDescription)")
        }
        #expect(directory.text("absent") == nil)
    }

    @Test func rawTextDropsOneTrailingNewlineOnly() throws {
        let root = try Integration.makeTree(["d/model": "QEMU   \n\n", "d/one": "\n", "d/none": "", "d/plain": "x"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let directory = try #require(SysfsDirectory(root + "/d"))
        #expect(directory.rawText("model") == "QEMU   \n")
        #expect(directory.rawText("one") == nil)
        #expect(directory.rawText("none") == nil)
        #expect(directory.rawText("plain") == "x")
    }

    @Test func theComponentBeforeTheLastSkipsEmptyOnes() {
        let cases: [(String, String?)] = [
            ("../../devices/pci0000:00/block/sda/sda1", "sda"), ("a//b/", "a"), ("//a//b//", "a"),
            ("sda1", nil), ("/sda1", nil), ("", nil), ("///", nil), ("x/y", "x"), ("é/日本/z", "日本"),
        ]
        for (target, expected) in cases {
            let found = Array(target.utf8).withUnsafeBytes { LinkText.componentBeforeLast($0) }
            // What the kernel's link named: split as String.split splits it.
            let parts = target.split(separator: "/")
            #expect(
                found == expected && found == (parts.count >= 2 ? String(parts[parts.count - 2]) : nil), "\(target)")
        }
    }

    @Test func aLinkIsReadWholeOrNotAtAll() throws {
        let root = try Integration.makeTree(
            [:], links: ["l/short": "../x/y", "l/long": String(repeating: "d/", count: 1_500)])
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(Files.linkTarget(root + "/l/short") == "../x/y")
        #expect(Files.linkTarget(root + "/l/long") == String(repeating: "d/", count: 1_500))
        #expect(Files.linkTarget(root + "/l/absent") == nil)
        #expect(SysfsTree.parentName(root + "/l/short") == "x")
    }
}
