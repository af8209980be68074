import CarveTestSupport
import Foundation
import Testing

/// `--recursive` on a real btrfs: every subvolume nested in a named writable snapshot
/// passes the rules as a snapshot of its own. Docker's layout, a file a process holds
/// and a clone written to, each nested in a snapshot, keep that snapshot; a plain
/// nested subvolume goes with its parent. btrfs-progs says what is left.
@Suite(.serialized, .enabled(if: Integration.enabled, "needs root and loop devices"))
struct RecursiveProtectionIntegrationTests {
    @Test func aProtectedNestedSubvolumeKeepsItsParentAndIsNamed() throws {
        try withDeletionDisk { disk in
            let mnt = disk.mountpoint
            try Data("x\n".utf8).write(to: URL(fileURLWithPath: mnt + "/data/file"))
            for box in ["engine", "held", "clone", "plain"] { try disk.snapshot(at: "snaps/" + box) }
            // Docker's btrfs driver, as LiveDataDisk lays it out, inside a snapshot.
            try FileManager.default.createDirectory(
                atPath: mnt + "/snaps/engine/var/lib/docker/image/btrfs", withIntermediateDirectories: true)
            try disk.snapshot(at: "snaps/engine/var/lib/docker/btrfs/subvolumes/4f2a")
            try Shell.check(["btrfs", "subvolume", "create", mnt + "/snaps/held/inner"])
            try Data("y\n".utf8).write(to: URL(fileURLWithPath: mnt + "/snaps/held/inner/file"))
            try disk.snapshot(at: "snaps/clone/work")
            try Shell.check(["btrfs", "filesystem", "sync", mnt])
            try Data("work\n".utf8).write(to: URL(fileURLWithPath: mnt + "/snaps/clone/work/new"))
            try Shell.check(["btrfs", "subvolume", "create", mnt + "/snaps/plain/inner"])
            try Shell.check(["btrfs", "filesystem", "sync", mnt])
            let reader = try LiveDataIntegrationTests.sleeper(stdin: mnt + "/snaps/held/inner/file")
            defer { LiveDataIntegrationTests.stop(reader) }
            let before = try disk.subvolumes()
            let boxes = ["engine", "held", "clone", "plain"].map { mnt + "/snaps/" + $0 }
            // Without --recursive, each is kept for its nested subvolumes.
            let alone = try disk.carve(["snapshots", "delete"] + boxes + ["--yes"])
            #expect(alone.status == 1, "\(alone.stderr)")
            #expect(try disk.subvolumes() == before)
            let result = try disk.carve(["snapshots", "delete"] + boxes + ["--recursive", "--yes"])
            #expect(result.status == 4, "\(result.stderr)")
            let said = result.stdout + result.stderr
            for reason in [
                "snaps/engine/var/lib/docker/btrfs/subvolumes/4f2a is protected: owned by docker",
                "snaps/held/inner is protected: in use by \(reader.processIdentifier) (sleep)",
                "snaps/clone/work is protected: written to since it was taken: a clone in use",
            ] {
                #expect(said.contains("its nested subvolume \(mnt)/\(reason)"), "\(said)")
            }
            #expect(try disk.subvolumes() == before.filter { !$0.hasPrefix("snaps/plain") })
        }
    }
}
