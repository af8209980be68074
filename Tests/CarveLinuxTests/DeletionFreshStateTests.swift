import CarveCore
@testable import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// The deleter's check against the filesystem's state right before each deletion,
/// on real loop-backed btrfs: what changes after the plan (and after earlier
/// deletions of the same run warmed every cache) is still seen.
@Suite(.serialized, .integration())
struct DeletionFreshStateTests {
    @Test func aMountMadeMidRunIsRefusedAndAnUnmountIsSeenToo() throws {
        try withDeletionDisk { disk in
            for name in ["s1", "s2", "s3", "s4"] { try disk.snapshot(name) }
            let run = try Run(disk)
            #expect(run.delete("s1") == "deleted")
            let elsewhere = try disk.disk.mount(disk.disk.device, options: "subvol=snaps/s2", name: "elsewhere")
            #expect(run.delete("s2") == "refused: subvolume is mounted at \(elsewhere) (EBUSY)")
            let bound = try disk.disk.mount(disk.mountpoint + "/snaps/s3", options: "bind", name: "bound")
            #expect(run.delete("s3") == "refused: subvolume is mounted at \(bound) (EBUSY)")
            #expect(run.delete("s4") == "deleted")
            try disk.disk.unmount(elsewhere)
            try disk.disk.unmount(bound)
            #expect(run.delete("s2") == "deleted")
            #expect(run.delete("s3") == "deleted")
            #expect(try disk.subvolumes() == ["data"])
        }
    }

    @Test func aDefaultSetOrANestedSubvolumeMadeMidRunIsRefused() throws {
        try withDeletionDisk { disk in
            for name in ["s1", "s2"] { try disk.snapshot(name) }
            try Shell.check([
                "btrfs", "subvolume", "snapshot", disk.mountpoint + "/data", disk.mountpoint + "/snaps/rw",
            ])
            let run = try Run(disk)
            try Shell.check(["btrfs", "subvolume", "set-default", disk.mountpoint + "/snaps/s1"])
            #expect(run.delete("s1") == "refused: it is the filesystem's default subvolume")
            try Shell.check(["btrfs", "subvolume", "create", disk.mountpoint + "/snaps/rw/inner"])
            #expect(run.delete("rw") == "refused: it has nested subvolumes (use --recursive to delete them too)")
            #expect(run.delete("s2") == "deleted")
            #expect(run.delete("s2") == "already gone")
            #expect(try disk.subvolumes() == ["data", "snaps/rw", "snaps/rw/inner", "snaps/s1"])
        }
    }

    /// The kernel refuses these inside the deletion call; the backend names the rule it kept.
    @Test func theKernelsRefusalsAreNamedAsTheRulesTheyKeep() throws {
        try withDeletionDisk { disk in
            try disk.snapshot("s1")
            try Shell.check([
                "btrfs", "subvolume", "snapshot", disk.mountpoint + "/data", disk.mountpoint + "/snaps/rw",
            ])
            try Shell.check(["btrfs", "subvolume", "create", disk.mountpoint + "/snaps/rw/inner"])
            let run = try Run(disk)
            try Shell.check(["btrfs", "subvolume", "set-default", disk.mountpoint + "/snaps/s1"])
            for (name, expected) in [("s1", Protection.defaultSubvolume), ("rw", .nestedSubvolumes)] {
                let snapshot = try #require(run.planned[name])
                #expect {
                    try run.backend.deleteSubvolume(snapshot.subvolume, on: snapshot.filesystem, recursive: false)
                } throws: { ($0 as? RefusedByFilesystem)?.protection == expected }
            }
            try Shell.check(["btrfs", "subvolume", "set-default", "5", disk.mountpoint])
            let s1 = try #require(run.planned["s1"])
            #expect {
                try run.backend.deleteSubvolume(s1.subvolume, on: s1.filesystem, recursive: false)
                try run.backend.deleteSubvolume(s1.subvolume, on: s1.filesystem, recursive: false)
            } throws: { ($0 as? SystemCallError)?.errno == ENOENT }
            #expect(try disk.subvolumes() == ["data", "snaps/rw", "snaps/rw/inner"])
        }
    }

    /// btrfs gives a freed id out again after a fresh mount (the highest id + 1): the run
    /// holds the filesystem open from its listing on, so a remount mid-run mounts the same
    /// filesystem and the planned id can only name the planned snapshot, or nothing.
    @Test func aPlannedIdNamesNoOtherSubvolumeAfterARemountMidRun() throws {
        try withDeletionDisk { disk in
            for name in ["s1", "s2"] { try disk.snapshot(name) }
            let run = try Run(disk)
            let planned = try #require(run.planned["s2"]).subvolume.id
            // A commit wakes the cleaner at once, where the sync alone waits up to 30 s for it.
            try Shell.check(["btrfs", "subvolume", "delete", "--commit-after", disk.mountpoint + "/snaps/s2"])
            try Shell.check(["btrfs", "subvolume", "sync", disk.mountpoint])
            try Shell.check(["umount", "-l", disk.mountpoint])
            try Shell.check(["mount", disk.disk.device, disk.mountpoint])
            try disk.snapshot("s3")
            let line = try Shell.check(["btrfs", "inspect-internal", "rootid", disk.mountpoint + "/snaps/s3"])
            #expect(UInt64(line.trimmingCharacters(in: .whitespacesAndNewlines)) != planned)
            #expect(run.delete("s2") == "already gone")
            #expect(run.delete("s1") == "deleted")
            #expect(try disk.subvolumes() == ["data", "snaps/s3"])
        }
    }
}

/// One deletion run's backend and deleter, as `carve snapshots delete` builds them, on
/// the snapshots listed when it starts (the plan); released before the disk is cleaned up.
private struct Run {
    let backend = SnapshotBackendRegistry.classifying(BtrfsSnapshotBackend())
    let deleter: SnapshotDeleter
    let planned: [String: PlannedSnapshot]

    init(_ disk: DeletionDisk) throws {
        let filesystem = try backend.filesystem(containing: disk.mountpoint)
        let listing = try backend.subvolumes(of: filesystem, sizes: .none)
        deleter = SnapshotDeleter(backend: backend, rules: DeletionRules(), owners: OwnerRooms())
        var planned: [String: PlannedSnapshot] = [:]
        for subvolume in listing.subvolumes where subvolume.path.hasPrefix("snaps/") {
            planned[String(subvolume.path.dropFirst("snaps/".count))] = PlannedSnapshot(
                subvolume: subvolume, filesystem: filesystem)
        }
        self.planned = planned
    }

    /// Deletes the snapshot named `name` under snaps/ and says what happened in a few words.
    func delete(_ name: String) -> String {
        guard let snapshot = planned[name] else { return "not planned" }
        let outcome = deleter.delete(snapshot)
        switch outcome.result {
        case .deleted: return "deleted"
        case .alreadyGone: return "already gone"
        case .refused: return "refused: \(outcome.errorText ?? "")"
        case .failed, .failedToDelete: return "failed: \(outcome.errorText ?? "")"
        }
    }
}
