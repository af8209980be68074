@testable import CarveCLI
import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// A prompt may wait for minutes: once it is answered, who holds what and each clone's
/// state are read again, and what became protected meanwhile is kept and reported.
@Suite struct PromptRecheckCommandTests {
    typealias F = SnapshotFixtures

    @Test func aCloneWrittenToAndAHolderStartedWhileThePromptWaitedAreKept() {
        var tree = F.snapshot(320, path: "work/tree", of: F.subvolume(256, path: "@home"), daysAgo: 48)
        tree.readOnly = false
        let harness = DeleteHarness(extra: [tree])
        harness.stdinIsTerminal = true
        harness.answer = "y"
        let holders = FakeVolumeHolders()
        harness.holders = holders
        let backend = harness.backend
        harness.whilePromptWaits = {
            var all = backend.filesystems
            let index = all[0].subvolumes.firstIndex { $0.id == 320 }!
            all[0].subvolumes[index].changedSinceTaken = true
            backend.filesystems = all
        }
        holders.onRecheck = { _ in [301: [VolumeHolder(pid: 4242, command: "restic")]] }
        let result = harness.run(["delete", "--filesystem", "/mnt", "--older-than", "45d", "--manager", "plain"])
        #expect(result.status == 4, "\(result.stderr)")
        #expect(holders.refreshes == 1)
        #expect(
            result.stderr.contains(
                "/mnt/work/tree (id 320): written to since it was taken: a clone in use (name it to delete it)"),
            "\(result.stderr)")
        #expect(result.stderr.contains("/mnt/snaps/home.1 (id 301): in use by 4242 (restic)"), "\(result.stderr)")
        #expect(harness.remaining.contains(320) && harness.remaining.contains(301))
        #expect(!harness.remaining.contains(300))
    }
}

/// `--bytes` on delete and thin: the plan's sizes as exact byte counts, for scripts.
@Suite struct DeletionBytesCommandTests {
    @Test func aDryRunSaysItsSizesInBytes() {
        let harness = DeleteHarness()
        // 300 and 301 are older than 45 days, 10 MiB exclusive each (the harness's quota figures).
        let result = harness.run([
            "delete", "--filesystem", "/mnt", "--older-than", "45d", "--manager", "plain", "--dry-run", "--bytes",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("freeing at least 20971520"), "\(result.stdout)")
        #expect(result.stdout.contains(" 10485760\n"), "\(result.stdout)")
        let human = harness.run([
            "delete", "--filesystem", "/mnt", "--older-than", "45d", "--manager", "plain", "--dry-run",
        ])
        #expect(human.stdout.contains("freeing at least 20M"), "\(human.stdout)")
        // Oldest first: snapper's root:2 (1 MiB, 65 days) and 300 (10 MiB) reach 5M.
        let thin = harness.run(["thin", "/mnt", "--free", "5M", "--dry-run", "-b"])
        #expect(thin.status == 0 && thin.stdout.contains("freeing at least 11534336"), "\(thin.stdout)\(thin.stderr)")
    }
}
