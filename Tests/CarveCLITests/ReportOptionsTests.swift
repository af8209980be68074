@testable import CarveCLI
import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// `--quiet` and `--compact`, the options of a cron line: nothing but errors on
/// stderr, and one JSON document per line on stdout.
@Suite struct ReportOptionsTests {
    @Test func aQuietThinThatSucceedsPrintsNothing() {
        let harness = DeleteHarness()
        let result = harness.run(["thin", "/mnt", "--free", "25M", "--yes", "--quiet"])
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.isEmpty)
        #expect(harness.remaining == [256, 303, 304, 305, 310], "quiet, not idle: the snapshots went")
    }

    @Test func aQuietRunWithNothingToDoPrintsNothing() {
        let harness = DeleteHarness()
        let result = harness.run(["delete", "--manager", "plain", "--older-than", "10y", "--yes", "-q"])
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.isEmpty)
    }

    @Test func aQuietRunStillSaysWhatFailed() {
        let harness = DeleteHarness()
        harness.backend.fail(.delete(302), with: FakeSnapshotBackend.errno(16))
        let result = harness.run(["delete", "--manager", "plain", "--yes", "--quiet"])
        #expect(result.status == 4)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(lines.first?.hasPrefix("carve: cannot delete snapshot /mnt/snaps/home.2 (id 302): ") == true)
    }

    @Test func aQuietPromptStillShowsThePlanAndTheQuestion() {
        let harness = DeleteHarness()
        harness.stdinIsTerminal = true
        harness.answer = "n"
        let result = harness.run(["delete", "--manager", "plain", "--quiet"])
        #expect(result.stderr.contains("home.2"))
        #expect(result.stderr.contains("? [y/N] "))
        #expect(harness.remaining.count == 9)
    }

    @Test func compactIsOneDatedJSONLinePerRun() throws {
        let harness = DeleteHarness()
        var log = ""
        for free in ["1M", "1M"] {
            let result = harness.run(["thin", "/mnt", "--free", free, "--yes", "--quiet", "--compact"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.isEmpty)
            log += result.stdout
        }
        let lines = log.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines.last == "", "two runs, two lines:\n\(log)")
        for line in lines.dropLast() {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(json["carve_version"] as? String == CarveCommand.version)
            #expect(json["started"] is String && json["finished"] is String)
        }
    }

    @Test func compactListIsTheSameDocumentOnOneLine() throws {
        let list = SnapshotsListCommandTests()
        let pretty = list.list(["--json", "--explain", "--keep-last", "1"]).stdout
        let compact = list.list(["--compact", "--explain", "--keep-last", "1"]).stdout
        #expect(compact.filter { $0 == "\n" }.count == 1 && compact.hasSuffix("}\n"))
        let a = try JSONSerialization.jsonObject(with: Data(pretty.utf8)) as? NSDictionary
        let b = try JSONSerialization.jsonObject(with: Data(compact.utf8)) as? NSDictionary
        #expect(a != nil && a == b)
    }

    @Test func compactingKeepsStringsWhole() {
        let captured = CapturedText()
        let sink = CompactJSONOutput(captured)
        // Split where a naive splitter would break: inside strings, escapes and between documents.
        for piece in [
            "{\n   \"a b\": \"x }", " \\\" {\\n [\",\n   \"n\": [\n      1,\n", "      null\n   ]\n}\n", "[]\n{}\n",
        ] {
            sink.write(piece)
        }
        #expect(captured.stdout == "{\"a b\":\"x } \\\" {\\n [\",\"n\":[1,null]}\n[]\n{}\n")
    }
}
