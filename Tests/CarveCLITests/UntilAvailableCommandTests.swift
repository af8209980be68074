@testable import CarveCLI
import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// `thin --until-available`, `--max-count` and `list --prometheus` in-process on the fake
/// (100 GiB, of which 1 GiB and the snapshots' exclusive bytes are used).
@Suite struct UntilAvailableCommandTests {
    typealias F = SnapshotFixtures

    /// The available space of the delete harness's fake now, in MiB.
    static func availableMiB(_ harness: DeleteHarness) -> UInt64 {
        try! harness.backend.spaceUsage(of: F.filesystem()).available >> 20
    }

    @Test func thinDeletesTheOldestUntilTheTargetIsAvailable() throws {
        let harness = DeleteHarness()
        // 16M short: root:2 (1M; root:1 is important), then two 10M snapshots of @home.
        let target = "\(Self.availableMiB(harness) + 16)M"
        let result = harness.run(["thin", "/mnt", "--until-available", target, "--yes", "--wait", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(harness.remaining == [256, 302, 303, 304, 305, 310])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let goal = try #require(json["until_available"] as? [String: Any])
        #expect(goal["asked"] as? String == target)
        #expect(goal["met_before"] as? Bool == false && goal["met_after"] as? Bool == true)
        #expect(result.stderr.contains("available on /mnt: the target of "), "\(result.stderr)")
    }

    /// The extent map claims more than the fake frees: after the first batch (2) the real
    /// figure is short and a larger batch (4) follows, under a progress bar on a terminal.
    @Test func laterBatchesFollowTheRealFigure() throws {
        let harness = DeleteHarness()
        harness.stderrIsTerminal = true
        var map = ExtentMap(subvolumes: [256, 300, 301, 302, 303, 304, 305, 310, 311])
        let claims: [UInt64: UInt64] = [311: 15, 300: 15, 301: 5, 302: 5, 303: 5, 304: 5, 305: 5]
        for (id, mebibytes) in claims {
            map.addReference(subvolume: id, diskBytenr: id << 30, diskBytes: mebibytes << 20)
        }
        harness.backend.filesystems[0].exact = ExactSizes(map: map, scan: ExtentScanReport(), nodeSize: 16384)
        let target = "\(Self.availableMiB(harness) + 30)M"
        let result = harness.run([
            "thin", "/mnt", "--until-available", target, "--sizes", "exact", "--yes", "--wait",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        // root:2 and home.0 first (claimed 30M, freed 11M), then four more for the 19M missing.
        #expect(harness.remaining == [256, 305, 310])
        #expect(result.stderr.contains("19M short of the "), "\(result.stderr)")
        #expect(result.stderr.contains("deleting 4 more"), "\(result.stderr)")
        #expect(result.stdout.hasPrefix("deleted 6 snapshots"), "\(result.stdout)")
    }

    @Test func alreadyMetSaysSoInOneLine() {
        let harness = DeleteHarness()
        let result = harness.run(["thin", "/mnt", "--until-available", "50%", "--yes"])
        #expect(result.status == 0)
        #expect(
            result.stdout.hasPrefix("nothing to delete: ") && result.stdout.hasSuffix("at least 50% (50G) asked for\n"))
        #expect(result.stdout.split(separator: "\n").count == 1)
        #expect(harness.remaining.count == 9)
    }

    @Test func unreachableDeletesNothingAndSaysTheShortfall() {
        let harness = DeleteHarness()
        // 99% is 99G: 62M are held, 61M may go (root:1 is important).
        let result = harness.run(["thin", "/mnt", "--until-available", "99%", "--yes"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("1M short of the 99% (99G) asked for; nothing deleted"), "\(result.stderr)")
        #expect(harness.remaining.count == 9)
        let forced = harness.run(["thin", "/mnt", "--until-available", "99%", "--yes", "--best-effort"])
        #expect(forced.status == 0)
        #expect(harness.remaining == [256, 310])
    }

    @Test(arguments: ["0", "-5%", "101%", "20 %", "abc", "200G"])
    func badTargetsAreUsageErrors(value: String) {
        let harness = DeleteHarness()
        let result = harness.run(["thin", "/mnt", "--until-available", value, "--yes"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("carve: invalid value '\(value)' for --until-available: "), "\(result.stderr)")
        #expect(harness.remaining.count == 9)
    }

    @Test func freeAndUntilAvailableAreOneOrTheOther() {
        let harness = DeleteHarness()
        let both = harness.run(["thin", "/mnt", "--free", "1M", "--until-available", "20%", "--yes"])
        #expect(both.status == 64)
        #expect(both.stderr.contains("--free and --until-available are one or the other"))
        let neither = harness.run(["thin", "/mnt", "--yes"])
        #expect(neither.status == 64)
        #expect(harness.remaining.count == 9)
    }

    @Test func aPolicyFileCarriesTheTarget() throws {
        let harness = DeleteHarness()
        let file = NSTemporaryDirectory() + "carve-test-policy-\(UUID().uuidString).conf"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try "# keep space free\n--until-available \(Self.availableMiB(harness) + 5)M\n--keep-last 3\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        let result = harness.run(["thin", "/mnt", "--options-file", file, "--yes"])
        #expect(result.status == 0, "\(result.stderr)")
        // --keep-last 3 keeps home.3…5 and both snapper snapshots (one source): home.0 goes.
        #expect(harness.remaining == [256, 301, 302, 303, 304, 305, 310, 311])
        try "--until-available '20 %'\n".write(toFile: file, atomically: true, encoding: .utf8)
        let bad = harness.run(["thin", "/mnt", "--options-file", file, "--yes"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("\(file):1: invalid value '20 %'"), "\(bad.stderr)")
    }

    @Test func maxCountCapsDeleteOldestFirst() {
        let harness = DeleteHarness()
        let result = harness.run(["delete", "--filesystem", "/mnt", "--all", "--max-count", "2", "--yes"])
        #expect(result.status == 0, "\(result.stderr)")
        // root:1 (70 days, important) is protected; root:2 (65 days) and home.0 (60 days) go.
        #expect(harness.remaining == [256, 301, 302, 303, 304, 305, 310])
        #expect(result.stderr.contains("--max-count 2: 5 more snapshots are left for a later run"))
        let thin = harness.run(["thin", "/mnt", "--free", "30M", "--max-count", "1", "--yes"])
        #expect(thin.status == 0)
        #expect(harness.remaining == [256, 302, 303, 304, 305, 310])
    }

    @Test(arguments: ["0", "-1", "x"])
    func maxCountBelowOneIsAUsageError(value: String) {
        let harness = DeleteHarness()
        for command in [["delete", "--filesystem", "/mnt", "--all"], ["thin", "/mnt", "--free", "1M"]] {
            let result = harness.run(command + ["--max-count", value, "--yes"])
            #expect(result.status == 64, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("'\(value)'") && result.stderr.contains("--max-count"), "\(result.stderr)")
        }
        #expect(harness.remaining.count == 9)
    }
}
