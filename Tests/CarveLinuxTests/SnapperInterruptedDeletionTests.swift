import CarveCore
import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// A carve killed between deleting a snapper snapshot's subvolume and its
/// `.snapshots/N`, with real snapper: the next run finishes exactly what the marker
/// says, and nothing else.
@Suite(.serialized, .integration(needing: "snapper"))
struct SnapperInterruptedDeletionTests {
    func withSnapper(_ body: (DeletionDisk, String) throws -> Void) throws {
        try withDeletionDisk { disk in try withSnapperConfig(on: disk) { config in try body(disk, config) } }
    }

    func create(_ config: String, count: Int) throws {
        for index in 1...count {
            try Shell.check(["snapper", "--no-dbus", "-c", config, "create", "-d", "carve test \(index)"])
        }
    }

    /// `snapper list` (number first, then date, description…), the reference for what snapper sees.
    func snapperList(_ config: String) throws -> String {
        try Shell.check([
            "snapper", "--no-dbus", "-c", config, "--csvout", "list", "--columns",
            "number,type,date,user,cleanup,description,userdata",
        ])
    }

    /// Every `.snapshots/N` as names and file contents (`snapshot` as "subvolume"): what
    /// a run may change there, byte for byte.
    func snapshotsTree(_ disk: DeletionDisk) throws -> [String: [String: String]] {
        let snapshots = disk.mountpoint + "/data/.snapshots"
        var tree: [String: [String: String]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: snapshots) {
            var entries: [String: String] = [:]
            for entry in try FileManager.default.contentsOfDirectory(atPath: snapshots + "/" + name) {
                let path = snapshots + "/" + name + "/" + entry
                // Files.text, not String(contentsOfFile:): Foundation leaks its buffer
                // reading an empty file (the marker), which LeakSanitizer reports.
                entries[entry] =
                    isSubvolume(path)
                    ? "subvolume"
                    : Files.text(path) ?? "unreadable"
            }
            tree[name] = entries
        }
        return tree
    }

    /// The real backend's view of one snapper snapshot, as a deletion run has it.
    func snapperSnapshot(
        _ number: Int, _ config: String, on disk: DeletionDisk
    ) throws -> (SnapshotBackendRegistry, Volume, Filesystem) {
        let backend = SnapshotBackendRegistry.classifying(BtrfsSnapshotBackend())
        let filesystem = try backend.filesystem(containing: disk.mountpoint)
        let listing = try backend.subvolumes(of: filesystem, sizes: .none)
        let subvolume = try #require(
            listing.subvolumes.first { $0.metadata.config == config && $0.metadata.number == number })
        return (backend, subvolume, filesystem)
    }

    /// The state a SIGKILL right after the subvolume's deletion leaves, made with the
    /// primitives `SnapshotDeleter.delete` calls, in its order, stopping where the kill would.
    func killAfterDeletingSubvolume(_ number: Int, _ config: String, on disk: DeletionDisk) throws {
        let (backend, subvolume, filesystem) = try snapperSnapshot(number, config, on: disk)
        #expect(try OwnerRooms().markDeletion(of: subvolume, on: filesystem))
        try backend.deleteSubvolume(subvolume, on: filesystem, recursive: false)
    }

    /// A SIGKILL after the marker, before the subvolume's deletion.
    func killBeforeDeletingSubvolume(_ number: Int, _ config: String, on disk: DeletionDisk) throws {
        let (_, subvolume, filesystem) = try snapperSnapshot(number, config, on: disk)
        #expect(try OwnerRooms().markDeletion(of: subvolume, on: filesystem))
    }

    @Test func theNextRunFinishesTheMarkedDirectoryAndTouchesNothingElse() throws {
        try withSnapper { disk, config in
            try create(config, count: 6)
            try disk.snapshot("other")
            let snapshots = disk.mountpoint + "/data/.snapshots"
            try killAfterDeletingSubvolume(2, config, on: disk)
            try killBeforeDeletingSubvolume(3, config, on: disk)
            // Left without its subvolume by someone else: not carve's to remove.
            try Shell.check(["btrfs", "-q", "subvolume", "delete", snapshots + "/4/snapshot"])
            let marker = try String(contentsOfFile: snapshots + "/2/.carve-deleting", encoding: .utf8)
            #expect(marker.contains("is deleting subvolume"), "\(marker)")
            #expect(!isSubvolume(snapshots + "/2/snapshot"))
            #expect(FileManager.default.fileExists(atPath: snapshots + "/2/info.xml"))

            let list = try snapperList(config)
            let tree = try snapshotsTree(disk)
            let subvolumes = try disk.subvolumes()

            let dry = try disk.carve(["snapshots", "delete", disk.mountpoint + "/snaps/other", "--dry-run"])
            #expect(dry.status == 0, "\(dry.stderr)")
            #expect(
                dry.stderr.contains(
                    "carve: would finish removing the metadata of snapper snapshot \(config):2 (\(snapshots)/2) left by an interrupted run"
                ), "\(dry.stderr)")
            #expect(
                dry.stderr.contains(
                    "carve: would remove the deletion marker of snapper snapshot \(config):3 (\(snapshots)/3)"))
            #expect(!dry.stderr.contains("\(config):4"), "the unmarked directory is not carve's")
            #expect(try snapshotsTree(disk) == tree, "a dry run changes nothing")
            #expect(try disk.subvolumes() == subvolumes)

            let run = try disk.carve(["snapshots", "delete", disk.mountpoint + "/snaps/other", "--yes"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(
                run.stderr.contains(
                    "carve: finished removing the metadata of snapper snapshot \(config):2 (\(snapshots)/2) left by an interrupted run"
                ), "\(run.stderr)")
            var expected = tree
            expected["2"] = nil
            expected["3"]?[".carve-deleting"] = nil
            #expect(try snapshotsTree(disk) == expected, "only 2/ and 3's marker are gone")
            #expect(try disk.subvolumes() == subvolumes.filter { $0 != "snaps/other" })
            #expect(try snapperList(config) == list, "snapper sees the same snapshots")

            let again = try disk.carve([
                "snapshots", "delete", "--filesystem", disk.mountpoint, "--manager", "plain", "--all", "--yes",
            ])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(!again.stderr.contains("interrupted run"), "nothing is left to finish: \(again.stderr)")
            #expect(try snapshotsTree(disk) == expected)
        }
    }

    @Test func aRunWithNothingToDeleteStillFinishesIt() throws {
        try withSnapper { disk, config in
            try create(config, count: 3)
            try killAfterDeletingSubvolume(3, config, on: disk)
            let list = try snapperList(config)
            let run = try disk.carve([
                "snapshots", "delete", "--filesystem", disk.mountpoint, "--older-than", "1000d", "--yes", "--json",
            ])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains("\(config):3"), "\(run.stderr)")
            #expect(DeletionDisk.ids(try DeletionDisk.json(run)["deleted"]).isEmpty)
            #expect(try snapshotsTree(disk).keys.sorted() == ["1", "2"])
            #expect(try snapperList(config) == list)
        }
    }

    @Test(.integration(needing: "strace"))
    func aSIGKILLInTheWindowAndOneInTheNextRunsFinishingAreBothFinished() throws {
        try withSnapper { disk, config in
            try create(config, count: 5)
            let snapshots = disk.mountpoint + "/data/.snapshots"
            try Shell.check(["btrfs", "-q", "subvolume", "delete", snapshots + "/5/snapshot"])
            let original = try snapshotsTree(disk)
            let listed = try snapperList(config)

            // Killed on its first unlinkat: in a clean run, the metadata removal's first
            // file, after the subvolume's deletion: exactly in the window.
            let killed = try disk.carveKilled(entering: "unlinkat", 1, ["snapshots", "delete", "\(config):2", "--yes"])
            #expect(killed.status == SIGKILL, "\(killed.status): \(killed.stderr)")
            var expected = original
            expected["2"]?["snapshot"] = nil
            let marker = try #require(
                try snapshotsTree(disk)["2"]?[".carve-deleting"],
                "no marker in 2/: \((try? snapshotsTree(disk)) ?? [:]), \(killed.stderr)")
            expected["2"]?[".carve-deleting"] = marker
            #expect(try snapshotsTree(disk) == expected, "2/ keeps info.xml and the marker, its subvolume is gone")
            let withoutTwo = listed.split(separator: "\n").filter { !$0.hasPrefix("2,") }
            #expect(try snapperList(config).split(separator: "\n") == withoutTwo, "snapper no longer lists 2")

            // The next run is killed while finishing 2/, between its info.xml and its marker.
            let again = try disk.carveKilled(entering: "unlinkat", 2, ["snapshots", "delete", "\(config):4", "--yes"])
            #expect(again.status == SIGKILL, "\(again.status): \(again.stderr)")
            // Emptied but for the marker, 2/ took carve's retired name before the marker's unlink.
            expected["2"] = nil
            expected[".carve-deleted-2"] = [".carve-deleting": marker]
            #expect(
                try snapshotsTree(disk) == expected,
                "only the marker is left, under the retired name; 4 was not reached")

            let last = try disk.carve(["snapshots", "delete", "\(config):4", "--yes"])
            #expect(last.status == 0, "\(last.stderr)")
            #expect(
                last.stderr.contains(
                    "carve: finished removing the metadata of snapper snapshot \(config):2 (\(snapshots)/.carve-deleted-2) left by an interrupted run"
                ),
                "\(last.stderr)")
            expected[".carve-deleted-2"] = nil
            expected["4"] = nil
            #expect(
                try snapshotsTree(disk) == expected,
                "2/ and 4/ are gone, 5/ (no marker) and the others are as they were")
            #expect(try snapperList(config).split(separator: "\n") == withoutTwo.filter { !$0.hasPrefix("4,") })
        }
    }

    /// Real SIGKILLs at random points of a snapper bulk delete: after each, no
    /// `.snapshots/N` holds info.xml without either its subvolume or the marker,
    /// and the last run leaves snapper with nothing and `.snapshots` empty.
    /// Each step of a deletion is held 3 ms (a run of 40 then takes about a second),
    /// and the kill waits a random part of one deletion, so it lands before a
    /// different step each round and never after the run has ended.
    @Test(.integration(needing: "strace"))
    func killedAgainAndAgainNothingIsLeftHalfDone() throws {
        try withSnapper { disk, config in
            try create(config, count: 40)
            let arguments = [
                "snapshots", "delete", "--filesystem", disk.mountpoint, "--manager", "snapper", "--all", "--yes",
            ]
            for round in 1...4 {
                let started = try disk.startCarve(arguments, afterDeletions: 2, pacing: 3_000)
                let run = started.run
                usleep(UInt32.random(in: 0..<30_000))
                kill(started.carve, SIGKILL)
                run.waitUntilExit()
                #expect(run.terminationReason == .uncaughtSignal, "round \(round): the run ended before it was killed")
                let left = try snapperList(config).split(separator: "\n").count - 2
                #expect(left > 0 && left <= 40 - 2 * round, "round \(round): \(left) snapper snapshots left")
                for (name, entries) in try snapshotsTree(disk) where entries["snapshot"] == nil {
                    #expect(
                        entries["info.xml"] == nil || entries[".carve-deleting"] != nil,
                        "round \(round): \(name)/ has info.xml, no subvolume and no marker: \(entries.keys.sorted())")
                }
            }
            let last = try disk.carve(arguments)
            #expect(last.status == 0, "\(last.stderr)")
            #expect(try snapperList(config).split(separator: "\n").count == 2, "only the header and 0 are left")
            let leftover = try snapshotsTree(disk)
            #expect(leftover.isEmpty, "left in .snapshots: \(leftover); last run: \(last.stderr.suffix(600))")
            #expect(try disk.subvolumes() == ["data", "data/.snapshots"])
        }
    }
}

/// What the sweep must never take for a marked directory of carve's, in a snapper
/// layout that no config names (found through the snapshot listed in it).
@Suite(.serialized, .integration())
struct InterruptedDeletionHostileTests {
    @Test func onlyARealMarkerWithNoSnapshotIsFinished() throws {
        try withDeletionDisk { disk in
            let layout = disk.mountpoint + "/x/.snapshots"
            let outside = disk.disk.directory + "/outside"
            try disk.snapshot("other")
            // A snapper-layout snapshot, so the listing shows this .snapshots.
            try Shell.check([
                "python3", "-c",
                """
                import os, sys
                layout, outside = sys.argv[1], sys.argv[2]
                def tree(base, files):
                    for name, text in files.items():
                        os.makedirs(os.path.dirname(os.path.join(base, name)), exist_ok=True)
                        if text is None: os.makedirs(os.path.join(base, name), exist_ok=True)
                        else: open(os.path.join(base, name), "w").write(text)
                os.makedirs(layout + "/1")
                tree(outside + "/7", {".carve-deleting": "x", "info.xml": "<snapshot/>"})
                os.symlink(outside + "/7", layout + "/7")
                tree(layout + "/8", {".carve-deleting": "x", "info.xml": "<snapshot/>", "snapshot/file": "kept"})
                tree(layout + "/9", {".carve-deleting": None, "info.xml": "<snapshot/>"})
                tree(layout + "/10", {".carve-deleting": "x", "info.xml": "<snapshot/>", "filelist-9.txt": "f"})
                os.makedirs(os.fsencode(layout) + b"/1\\xff")
                open(os.fsencode(layout) + b"/1\\xff/.carve-deleting", "w").write("x")
                os.makedirs(layout + "/11")
                open(layout + "/11/info.xml", "w").write("<snapshot/>")
                """, layout, outside,
            ])
            try Shell.check([
                "btrfs", "-q", "subvolume", "snapshot", "-r", disk.mountpoint + "/data", layout + "/1/snapshot",
            ])
            let before = try Shell.check(["find", layout, outside, "-printf", "%p %y\\n"])

            let run = try disk.carve(["snapshots", "delete", disk.mountpoint + "/snaps/other", "--yes"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(
                run.stderr.contains(
                    "carve: finished removing the metadata of snapper snapshot \(layout)/10 left by an interrupted run"),
                "\(run.stderr)")
            #expect(
                run.stderr.contains("carve: removed the deletion marker of snapper snapshot \(layout)/8"),
                "\(run.stderr)")
            let expected = before.split(separator: "\n").filter {
                !$0.hasPrefix("\(layout)/10") && !$0.hasPrefix("\(layout)/8/.carve-deleting f")
            }
            #expect(
                try Shell.check(["find", layout, outside, "-printf", "%p %y\\n"]).split(separator: "\n") == expected,
                "only 10/ and 8's marker are gone: the symlink, its target, 9's directory named like the marker, the non-UTF-8 name and the unmarked 11 stay"
            )
        }
    }
}
