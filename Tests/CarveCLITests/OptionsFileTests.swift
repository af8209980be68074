@testable import CarveCLI
import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// `--options-file`: a policy file of ordinary options, one a line, read by carve's
/// own parser; a bad line names the file and line, and nothing is deleted.
@Suite struct OptionsFileTests {
    func policy(_ text: String) throws -> String {
        let directory = try Integration.makeScratchDirectory()
        let path = directory + "/home policy.conf"
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    @Test func aPolicyFileActsAsItsOptionsWould() throws {
        let file = try policy(
            """
            # nightly: plain snapshots older than 35 days
            --manager plain

              --older-than 35d
            --yes
            """)
        let byFile = DeleteHarness()
        let result = byFile.run(["delete", "--options-file", file, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let byHand = DeleteHarness()
        #expect(byHand.run(["delete", "--manager", "plain", "--older-than", "35d", "--yes", "--json"]).status == 0)
        #expect(byFile.remaining == byHand.remaining)
        #expect(byFile.remaining.count < 9, "something was deleted")
    }

    @Test(arguments: [
        ("--manager plain\nnightly\n", ":2: 'nightly' is not an option"),
        ("--manager plain\n--kep-daily 7\n", ":2: Unknown option '--kep-daily'"),
        ("--older-than 30x\n", ":1: invalid duration '30x'"),
        ("--yes --manager plain\n", ":1: one option a line: '--manager' goes on a line of its own"),
        ("--match 'unclosed\n", ":1: a quote is not closed"),
        ("--options-file /etc/other.conf\n", ":1: an options file cannot name another one"),
    ])
    func aBadLineNamesFileAndLineAndNothingIsDeleted(text: String, message: String) throws {
        let file = try policy(text)
        let harness = DeleteHarness()
        let result = harness.run(["delete", "--options-file", file, "--yes"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("carve: \(file)\(message)"), "\(result.stderr)")
        #expect(harness.remaining.count == 9)
    }

    @Test func aMissingFileIsBadInput() {
        let harness = DeleteHarness()
        let result = harness.run(["delete", "--options-file", "/nonexistent/carve.conf", "--yes"])
        #expect(result.status == 64)
        #expect(result.stderr == "carve: /nonexistent/carve.conf: no such options file\n")
    }

    @Test func quotedValuesKeepTheirBlanks() throws {
        #expect(try OptionsText.words(#"--match "snap *" "#, place: "f:1") == ["--match", "snap *"])
        #expect(try OptionsText.words("--filesystem '/mnt/my disk'", place: "f:1") == ["--filesystem", "/mnt/my disk"])
        #expect(try OptionsText.words("\t--yes\r", place: "f:1") == ["--yes"])
    }
}
