@testable import CarveCLI
import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// Faults during a real bulk delete on the fake backend (DeleteHarness): for each,
/// the line the user reads, the exit code, and that exactly the plan minus the
/// failed snapshot is gone.
@Suite struct DeleteFaultTests {
    @Test(arguments: [(Int32(16), "EBUSY"), (1, "EPERM"), (30, "EROFS")])
    func aDeleteFailureIsOneLineExit4AndOnlyThatSnapshotStays(code: Int32, name: String) {
        let harness = DeleteHarness()
        harness.backend.fail(.delete(302), with: FakeSnapshotBackend.errno(code))
        let result = harness.run(["delete", "--manager", "plain", "--yes"])
        #expect(result.status == 4)
        #expect(harness.remaining == [256, 302, 310, 311], "the plain subvolume and snapper's stay; only 302 failed")
        // The snapshot once, then the cause once.
        let line =
            "carve: cannot delete snapshot /mnt/snaps/home.2 (id 302): "
            + Errno.describe(code, call: "btrfs_util_delete_subvolume")
        #expect(result.stderr.split(separator: "\n").contains { $0 == line }, "\(result.stderr)")
        #expect(result.stderr.contains(name), "the errno name is shown: \(result.stderr)")
        #expect(
            result.stderr.contains("carve: deleted snapshot /mnt/snaps/home.3 (id 303)"),
            "the run went on after the failure")
    }

    @Test func aSnapshotDeletedBySomeoneElseCountsAsDoneAndIsSaid() {
        let harness = DeleteHarness()
        // Another process removes 301 after carve planned it: the ioctl says ENOENT.
        harness.backend.fail(.delete(301), with: FakeSnapshotBackend.errno(2))
        let result = harness.run(["delete", "--manager", "plain", "--older-than", "35d", "--yes"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains("carve: snapshot /mnt/snaps/home.1 (id 301) was already gone: counted as deleted"))
        #expect(
            harness.remaining == [256, 301, 303, 304, 305, 310, 311],
            "the fake still holds 301: carve did not remove it")
    }

    @Test func aFullDiskWhileRemovingSnapperMetadataIsReportedAndExits4() throws {
        let harness = DeleteHarness()
        harness.backend.fail(
            .removeMetadata(311),
            with: SystemCallError(
                "cannot remove snapper metadata /mnt/.snapshots/2", call: "unlinkat", errno: 28))
        let result = harness.run(["delete", "root:2", "/mnt/snaps/home.0", "--yes", "--json"])
        #expect(result.status == 4, "\(result.stderr)")
        #expect(
            harness.remaining == [256, 301, 302, 303, 304, 305, 310], "both named snapshots are gone, nothing else")
        #expect(
            result.stderr.contains(
                "carve: warning: cannot remove snapper metadata /mnt/.snapshots/2: no space left on device (ENOSPC, unlinkat)"
            ), "\(result.stderr)")
        #expect(!harness.backend.calls.contains(.delete(310)), "the important snapshot was never touched")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect((json["deleted"] as? [[String: Any]])?.compactMap { $0["id"] as? Int }.sorted() == [300, 311])
    }

    @Test func aFailureWhileReadingTheStateBeforeDeletingDeletesNothingOfThatSnapshot() {
        let harness = DeleteHarness()
        harness.backend.fail(
            .currentState(303),
            with: SystemCallError("cannot read subvolume 303", call: "btrfs_util_subvolume_info", errno: 5))
        let result = harness.run(["delete", "--manager", "plain", "--yes"])
        #expect(result.status == 4)
        #expect(harness.remaining == [256, 303, 310, 311])
        #expect(!harness.backend.calls.contains(.delete(303)))
        #expect(
            result.stderr.contains(
                "carve: cannot delete snapshot /mnt/snaps/home.3 (id 303): cannot read subvolume 303: input/output error (EIO, btrfs_util_subvolume_info)"
            ), "\(result.stderr)")
    }

    /// The JSON report gives a failed deletion's cause alone: the entry names the snapshot.
    @Test func aFailedDeletionsJSONErrorIsItsCause() {
        let harness = DeleteHarness()
        harness.backend.fail(.delete(303), with: FakeSnapshotBackend.errno(5))
        let json = harness.run(["delete", "--manager", "plain", "--yes", "--json"])
        #expect(
            json.stdout.contains(#""error": "input/output error (EIO, btrfs_util_delete_subvolume)""#), "\(json.stdout)"
        )
    }

    /// btrfs's own refusals (a send reading the snapshot, an active swap file, EBUSY) are
    /// said as their causes, never as a missing permission.
    @Test func theKernelsRefusalsAreSaidAsTheirCauses() {
        for (refusal, words) in [
            (Protection.beingSent, "a btrfs send is reading it (a backup in progress): delete it once the send ends"),
            (
                .activeSwapFile("/mnt/snaps/home.3/swap"),
                "it holds the active swap file /mnt/snaps/home.3/swap (swapoff it first)"
            ),
            (.mounted([]), "something is mounted on it (EBUSY)"),
        ] {
            let harness = DeleteHarness()
            harness.backend.fail(.delete(303), with: RefusedByFilesystem(refusal))
            let result = harness.run(["delete", "--manager", "plain", "--yes"])
            #expect(result.status == 4)
            #expect(result.stderr.contains("carve: cannot delete snapshot /mnt/snaps/home.3 (id 303): \(words)\n"))
            #expect(harness.remaining.contains(303))
        }
    }
}
