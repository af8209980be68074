import CarveTestSupport
import Foundation
import Testing

/// What the kernel refuses, said as its cause, on a real loop btrfs and real devices:
/// an EPERM is not always a missing permission, and root is never told it needs root.
@Suite(.serialized, .integration(needing: "btrfs", "unshare", "setpriv"))
struct KernelRefusalIntegrationTests {
    /// btrfs answers EPERM for a snapshot a `btrfs send` is reading (btrbk mid-backup).
    /// carve keeps it as in use first (the send holds it open); told to ignore that, the
    /// kernel's refusal is named as the send, once, with the snapshot named once.
    @Test func aSnapshotBeingSentIsRefusedNamingTheSend() throws {
        try withDeletionDisk { disk in
            try disk.snapshot("sent", mebibytes: 16)
            let path = disk.mountpoint + "/snaps/sent"
            let send = Process()
            send.executableURL = URL(fileURLWithPath: "/usr/bin/btrfs")
            send.arguments = ["send", "-q", path]
            // Never drained: the send blocks, mid-stream, once the pipe is full.
            let stream = Pipe()
            send.standardOutput = stream
            send.standardError = FileHandle.nullDevice
            try send.run()
            defer {
                kill(send.processIdentifier, SIGKILL)
                send.waitUntilExit()
            }
            // Its first byte means the send ioctl runs: btrfs marks the snapshot from then on.
            #expect(try stream.fileHandleForReading.read(upToCount: 1)?.count == 1)
            let kept = try disk.carve(["snapshots", "delete", path, "--yes"])
            #expect(kept.stdout.contains("in use by \(send.processIdentifier) (btrfs)"), "\(kept.stdout)")
            let refused = try disk.carve(["snapshots", "delete", path, "--ignore-in-use", "--yes"])
            #expect(refused.status == 1, "\(refused.stderr)")
            let line = try #require(refused.stderr.split(separator: "\n").first { $0.contains("cannot delete") })
            #expect(
                line.hasSuffix(
                    "cannot delete snapshot \(path) (id 257): a btrfs send is reading it (a backup in progress): "
                        + "delete it once the send ends"), "\(refused.stderr)")
            #expect(!refused.stderr.contains("not permitted") && !refused.stderr.contains("needs root"))
            kill(send.processIdentifier, SIGKILL)
            send.waitUntilExit()
            #expect(try disk.carve(["snapshots", "delete", path, "--yes"]).status == 0)
            #expect(try disk.subvolumes() == ["data"])
        }
    }

    /// btrfs deletes a snapshot with something mounted inside it and detaches the mount
    /// (a container's /proc, a bind mount) without a word: carve keeps it, in bulk and
    /// named, until the mount is gone.
    @Test func aSnapshotWithAMountInsideIsKeptUntilItIsUnmounted() throws {
        try withDeletionDisk { disk in
            try FileManager.default.createDirectory(
                atPath: disk.mountpoint + "/data/proc", withIntermediateDirectories: false)
            for name in ["held", "free"] { try disk.snapshot(name) }
            let inside = disk.mountpoint + "/snaps/held/proc"
            try Shell.check(["mount", "-t", "tmpfs", "carve-test", inside])
            defer { _ = try? Shell.run(["umount", inside]) }
            let reason = "something is mounted inside it at \(inside) (unmount it first)"
            let bulk = try disk.carve([
                "snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--yes", "--json",
            ])
            #expect(bulk.status == 0, "\(bulk.stderr)")
            let protected = try DeletionDisk.json(bulk)["protected"] as? [[String: Any]] ?? []
            #expect(protected.map { $0["reason"] as? String } == [reason])
            #expect(try disk.subvolumes() == ["data", "snaps/held"])
            let named = try disk.carve(["snapshots", "delete", disk.mountpoint + "/snaps/held", "--yes"])
            #expect(named.status == 1 && named.stdout.contains(reason), "\(named.stderr)")
            #expect(try Shell.run(["mountpoint", "-q", inside]).status == 0, "the mount inside is still there")
            try Shell.check(["umount", inside])
            #expect(try disk.carve(["snapshots", "delete", disk.mountpoint + "/snaps/held", "--yes"]).status == 0)
            #expect(try disk.subvolumes() == ["data"])
        }
    }

    /// Root in a user namespace made by an unprivileged user (a sandbox) cannot open the
    /// host's devices (EACCES): a failure naming the device and the cause, not "needs root".
    @Test func aDeviceRefusedToRootIsAFailureNamingTheCause() throws {
        // A partition: its table is read from the disk whatever udev knows of it.
        let disk = try LoopDisk(size: "300M", sfdisk: "label: gpt\n,,L\n")
        defer { disk.cleanup() }
        try Shell.check(["mkfs.ext4", "-q", disk.partition(1)])
        // nobody must reach the binary, whose build directory may lie in a mode-700 home.
        let reachable = try Integration.makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: reachable) }
        let binary = try CarveBinary.copy(into: reachable)
        let sandboxed = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "unshare", "--user"]
        #expect(try Shell.run(sandboxed + ["--map-root-user", "id", "-u"]).stdout == "0\n")
        let run = try Shell.run(
            sandboxed + ["--map-root-user", binary, "check", disk.partition(1), "--shrink-to", "200M"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(
            run.stderr
                == "carve: cannot open \(disk.device) to read its partition table: "
                + "permission denied (EACCES, fdisk_assign_device)\n")
    }
}
