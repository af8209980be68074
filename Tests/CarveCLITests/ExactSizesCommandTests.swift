@testable import CarveCLI
import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// `--sizes exact` on the fake backend with a synthetic extent map: quotas off,
/// snapshots 300…305 of @home (256), snapper 311 (310 is important).
@Suite struct ExactSizesCommandTests {
    static let mib: UInt64 = 1 << 20

    /// 300 and 301 share a 20M extent nobody else has; each snapshot has 1M of its
    /// own; everything shares a 100M extent with the live @home.
    static func harness() -> DeleteHarness {
        let harness = DeleteHarness(quotas: false)
        var map = ExtentMap(subvolumes: [256, 300, 301, 302, 303, 304, 305, 310, 311])
        for id: UInt64 in [256, 300, 301, 302, 303, 304, 305, 310, 311] {
            map.addReference(subvolume: id, diskBytenr: 1 << 30, diskBytes: 100 * mib)
            map.addReference(subvolume: id, diskBytenr: (2 << 30) + id * mib, diskBytes: mib)
        }
        for id: UInt64 in [300, 301] { map.addReference(subvolume: id, diskBytenr: 3 << 30, diskBytes: 20 * mib) }
        harness.backend.filesystems[0].exact = ExactSizes(
            map: map,
            scan: ExtentScanReport(subvolumes: 10, items: 40, fileExtentItems: 19, bytesRead: 4096, seconds: 0.01),
            nodeSize: 16384)
        return harness
    }

    @Test func thinChoosesByWhatTheSetFreesTogether() throws {
        let harness = Self.harness()
        // Oldest first: 311 (1M), 300 (1M), then 301 frees its 1M and the 20M it shared with 300.
        let result = harness.run(["thin", "/mnt", "--free", "21M", "--sizes", "exact", "--yes", "--json", "--verbose"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(harness.remaining == [256, 302, 303, 304, 305, 310])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["estimated_reclaim"] as? Int == Int(23 * Self.mib))
        #expect(result.stderr.contains("data bytes are exact, metadata is not included"))
    }

    @Test func thinSaysWhenEvenEverySnapshotTogetherIsNotEnough() {
        let harness = Self.harness()
        let result = harness.run(["thin", "/mnt", "--free", "30M", "--sizes", "exact", "--yes"])
        #expect(result.status == 1)
        // Seven eligible snapshots: 7M of their own and the 20M pair; the 100M stays with @home.
        #expect(
            result.stderr.contains(
                "deleting all 7 eligible snapshots on /mnt frees at least 27M, less than the 30M asked for"))
        #expect(harness.remaining.count == 9)
    }

    @Test func aDryRunDeleteEstimatesTheSetNotTheSum() throws {
        let harness = Self.harness()
        let result = harness.run(["delete", "--id", "300", "--id", "301", "--dry-run", "--sizes", "exact", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["estimated_reclaim"] as? Int == Int(22 * Self.mib))
        #expect(harness.remaining.count == 9)
    }

    @Test func listFillsExactSizesAndTheSetReclaim() throws {
        let harness = Self.harness()
        let result = runCarve(["snapshots", "list", "--sizes", "exact", "--json"]) { captured in
            Services(
                devices: FakeDeviceSource(), snapshots: harness.backend, clock: FixedClock(), output: captured,
                isRoot: true)
        }
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let snapshots = try #require(json["snapshots"] as? [[String: Any]])
        let exclusive = Dictionary(
            uniqueKeysWithValues: snapshots.map { ($0["id"] as? Int ?? 0, $0["exclusive"] as? Int) })
        #expect(exclusive[300] == Int(Self.mib))
        #expect(exclusive[301] == Int(Self.mib))
        let exact = try #require(json["exact"] as? [String: Any])
        // All eight snapshots (310 included: list shows it) together: 8M own + the 20M pair.
        #expect(exact["reclaim"] as? Int == Int(28 * Self.mib))
        #expect(exact["reclaim_data_exact"] as? Bool == true)
        #expect(exact["metadata_estimate_min"] as? Int == 8 * 16384)
        #expect((exact["scan"] as? [String: Any])?["cached_subvolumes"] as? Int == 0)
        #expect(result.stderr.contains("deleting them all frees 28M of data (exact)"))
    }

    @Test(arguments: [true, false])
    func progressIsDrawnOnlyOnATerminal(terminal: Bool) {
        let harness = Self.harness()
        let result = runCarve(["snapshots", "list", "--sizes", "exact"]) { captured in
            Services(
                devices: FakeDeviceSource(), snapshots: harness.backend, clock: FixedClock(), output: captured,
                isRoot: true, stderrIsTerminal: terminal)
        }
        #expect(result.status == 0, "\(result.stderr)")
        // Drawn after clearing the line, and cleared again before the notes.
        #expect(
            result.stderr.contains("\r\u{1B}[Kreading extents: 10/10 subvolumes, 4K read\r\u{1B}[Kcarve: ") == terminal,
            "\(result.stderr.debugDescription)")
        #expect(result.stderr.contains("reading extents") == terminal)
        #expect(!result.stdout.contains("reading extents"))
    }

    @Test func exactSizesNeedRoot() {
        let harness = Self.harness()
        let result = runCarve(["snapshots", "list", "--sizes", "exact"]) { captured in
            Services(
                devices: FakeDeviceSource(), snapshots: harness.backend, clock: FixedClock(), output: captured,
                isRoot: false)
        }
        #expect(result.status == 77)
        #expect(result.stderr.contains("exact sizes"))
    }

    /// Named snapshots deleted with --yes print no estimate, so none is scanned for;
    /// a dry run, JSON, --wait or --sizes still give one.
    @Test func namedSnapshotsDeletedWithYesAloneAreNotScannedFor() {
        let harness = Self.harness()
        let quiet = harness.run(["delete", "--id", "300", "--yes"])
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(harness.backend.exactScans == 0, "no extent map read for an estimate nobody sees")
        #expect(!quiet.stderr.contains("freeing") && !quiet.stderr.contains("unknown"), "\(quiet.stderr)")
        #expect(!quiet.stdout.contains("freeing") && !quiet.stdout.contains("unknown"), "\(quiet.stdout)")
        #expect(quiet.stdout.contains("deleted 1 snapshot"), "\(quiet.stdout)")
        #expect(harness.remaining == [256, 301, 302, 303, 304, 305, 310, 311])
        for extra in [["--dry-run"], ["--json"], ["--sizes", "auto"], ["--wait"]] {
            let scanned = Self.harness()
            let result = scanned.run(["delete", "--id", "301", "--yes"] + extra)
            #expect(result.status == 0, "\(extra): \(result.stderr)")
            #expect(scanned.backend.exactScans > 0, "\(extra)")
            #expect(
                (result.stdout + result.stderr).contains(
                    extra == ["--json"] ? "\"estimated_reclaim\": 1048576" : "freeing at least"),
                "\(extra): \(result.stdout)\(result.stderr)")
        }
        // A selection is planned with sizes, as before.
        let selection = Self.harness()
        let selected = selection.run(["delete", "--manager", "plain", "--older-than", "1d", "--yes"])
        #expect(selection.backend.exactScans > 0)
        #expect(selected.stderr.contains("freeing") || selected.stdout.contains("freeing"), "\(selected.stderr)")
    }

}
