@testable import CarveCLI
import CarveCore
import CarveTestSupport
import Foundation
import Testing

@Suite struct SnapshotsThinCommandTests {
    @Test func thinDeletesTheOldestUntilTheTarget() throws {
        let harness = DeleteHarness()
        // Oldest first: root:1 is important (skipped), then root:2 (1M), 300, 301, 302 (10M each).
        let result = harness.run(["thin", "/mnt", "--free", "25M", "--yes", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(harness.remaining == [256, 303, 304, 305, 310])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["estimated_reclaim"] as? Int == 31 << 20)
        #expect((json["protected"] as? [[String: Any]])?.first?["id"] as? Int == 310)
    }

    /// At the prompt, thin names what would take new snapshots of /mnt and how to pause it;
    /// a script (--yes, or no terminal) is not told.
    @Test func anInteractiveThinNamesTheSnapshotTimersOfTheFilesystem() {
        let harness = DeleteHarness()
        harness.schedules = SnapshotSchedules(
            enabledTimers: ["snapper-timeline.timer"],
            owners: [SnapperSchedule(timelines: [SnapperTimeline(name: "root", subvolume: "/mnt")])])
        harness.stdinIsTerminal = true
        harness.answer = "n"
        let result = harness.run(["thin", "/mnt", "--free", "5M"])
        #expect(
            result.stderr.contains(
                "carve: snapper-timeline.timer takes snapper's hourly timeline snapshots of /mnt (config root) again: "
                    + "pause it with `systemctl stop snapper-timeline.timer`, resume it with `systemctl start snapper-timeline.timer`\n"
            ), "\(result.stderr)")
        #expect(harness.remaining.count == 9)
        let scripted = harness.run(["thin", "/mnt", "--free", "5M", "--yes"])
        #expect(scripted.status == 0 && !scripted.stderr.contains("snapper-timeline"))
    }

    @Test func largestFirstAndSelectionOptionsAreHonoured() {
        let harness = DeleteHarness()
        let result = harness.run(["thin", "/mnt", "--free", "5M", "--order", "largest", "--keep-last", "5", "--yes"])
        #expect(result.status == 0, "\(result.stderr)")
        // --keep-last 5 keeps 301…305 of @home and both snapper snapshots (one source): only 300 is eligible.
        #expect(harness.remaining == [256, 301, 302, 303, 304, 305, 310, 311])
    }

    @Test func unknownSizesMeanNothingIsDeleted() {
        let harness = DeleteHarness(quotas: false)
        let result = harness.run(["thin", "/mnt", "--free", "1M", "--yes"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot estimate"))
        // Never the advice to turn quotas on, which makes every deletion ~125x slower.
        #expect(result.stderr.contains("--sizes exact reads them from the extent trees without quotas (as root)"))
        #expect(!result.stderr.contains("quota enable"))
        #expect(harness.remaining.count == 9)
    }

    @Test func notEnoughMeansNothingUnlessBestEffort() {
        let harness = DeleteHarness()
        let result = harness.run(["thin", "/mnt", "--free", "1G", "--yes"])
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                "deleting all 7 eligible snapshots on /mnt frees at least 61M, less than the 1G asked for"))
        #expect(harness.remaining.count == 9)
        let forced = harness.run(["thin", "/mnt", "--free", "1G", "--yes", "--best-effort"])
        #expect(forced.status == 0)
        #expect(harness.remaining == [256, 310])
    }

    @Test func aDryRunShowsTheChoice() {
        let harness = DeleteHarness()
        let result = harness.run(["thin", "/mnt", "--free", "1M", "--dry-run"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Would delete 1 snapshot, freeing at least 1M"))
        #expect(result.stdout.contains("root:2"))
        #expect(harness.remaining.count == 9)
    }

    @Test func aPathOffBtrfsIsBadInput() {
        let harness = DeleteHarness()
        harness.backend.setForeign("/home", error: RuntimeError("/home is on ext4: it has no btrfs snapshots"))
        let result = harness.run(["thin", "/home", "--free", "1G", "--yes"])
        #expect(result.status == 64)
        #expect(result.stderr == "carve: /home is on ext4: it has no btrfs snapshots\n")
    }
}
