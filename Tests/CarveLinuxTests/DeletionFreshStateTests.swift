import CarveCore
@testable import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// The deleter's check against the filesystem's state right before each deletion,
/// on real loop-backed btrfs: what changes after the plan (and after earlier
/// deletions of the same run warmed every cache) is still seen.
@Suite(.serialized, .enabled(if: Integration.enabled, "needs root and loop devices"))
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

    /// The one search over the root tree says what libbtrfsutil says of the same subvolumes.
    @Test func theRootTreeSearchAgreesWithLibbtrfsutil() throws {
        try withDeletionDisk { disk in
            try disk.snapshot("plain")
            try Shell.check([
                "btrfs", "subvolume", "snapshot", disk.mountpoint + "/data", disk.mountpoint + "/snaps/outer",
            ])
            try Shell.check(["btrfs", "subvolume", "create", disk.mountpoint + "/snaps/outer/inner"])
            try disk.snapshot("gone")
            let root = try DirectoryHandle(disk.mountpoint)
            func id(_ path: String) throws -> UInt64 {
                let line = try Shell.check(["btrfs", "inspect-internal", "rootid", disk.mountpoint + "/" + path])
                return try #require(UInt64(line.trimmingCharacters(in: .whitespacesAndNewlines)))
            }
            func otime(_ path: String) throws -> Int {
                // libbtrfsutil's view, through the command that prints it.
                let show = try Shell.check(["btrfs", "subvolume", "show", disk.mountpoint + "/" + path])
                let line = try #require(show.split(separator: "\n").first { $0.contains("Creation time:") })
                let text = line.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces)
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
                return Int(try #require(formatter.date(from: text), "\(text)").timeIntervalSince1970)
            }
            let plain = try #require(try SubvolumeState.read(try id("snaps/plain"), through: root))
            #expect(Int(plain.created.timeIntervalSince1970) == (try otime("snaps/plain")))
            #expect(!plain.hasNestedSubvolumes)
            let outer = try #require(try SubvolumeState.read(try id("snaps/outer"), through: root))
            #expect(outer.hasNestedSubvolumes)
            #expect(try SubvolumeState.read(try id("snaps/outer/inner"), through: root)?.hasNestedSubvolumes == false)
            let goneID = try id("snaps/gone")
            try Shell.check(["btrfs", "subvolume", "delete", disk.mountpoint + "/snaps/gone"])
            #expect(
                try SubvolumeState.read(goneID, through: root) == nil,
                "an unlinked subvolume waiting for the cleaner is gone")
            #expect(try SubvolumeState.read(goneID + 1000, through: root) == nil)
        }
    }
}

/// One deletion run's backend and deleter, as `carve snapshots delete` builds them, on
/// the snapshots listed when it starts (the plan); released before the disk is cleaned up.
private struct Run {
    let backend = BtrfsSnapshotBackend()
    let deleter: SnapshotDeleter
    let planned: [String: PlannedSnapshot]

    init(_ disk: DeletionDisk) throws {
        let filesystem = try backend.filesystem(containing: disk.mountpoint)
        let listing = try backend.subvolumes(of: filesystem, sizes: .none)
        deleter = SnapshotDeleter(backend: backend, rules: DeletionRules())
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
        case .failed(let error): return "failed: \(error.message)"
        }
    }
}
