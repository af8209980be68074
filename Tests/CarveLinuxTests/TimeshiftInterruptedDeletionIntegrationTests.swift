import CarveCore
import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// A carve killed between deleting a timeshift snapshot's `@…` subvolumes and its
/// `snapshots/DATE`, on a hand-made timeshift layout (as timeshift's btrfs mode
/// leaves it: `timeshift-btrfs/snapshots/DATE/{info.json,@,@home}` at the top level):
/// the next run finishes exactly what the marker says, and nothing else.
@Suite(.serialized, .integration())
struct TimeshiftInterruptedDeletionIntegrationTests {
    static let snapshots = "timeshift-btrfs/snapshots"

    /// A timeshift snapshot DATE of `data` (as @) and `home` (as @home), with info.json.
    func timeshift(_ disk: DeletionDisk, _ date: String, _ subvolumes: [String] = ["@", "@home"]) throws -> String {
        let directory = disk.mountpoint + "/" + Self.snapshots + "/" + date
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: disk.mountpoint + "/home") {
            try Shell.check(["btrfs", "-q", "subvolume", "create", disk.mountpoint + "/home"])
        }
        for name in subvolumes {
            try Shell.check([
                "btrfs", "-q", "subvolume", "snapshot", "-r", disk.mountpoint + (name == "@" ? "/data" : "/home"),
                directory + "/" + name,
            ])
        }
        try #"{"created": "1793534401", "tags": "D", "comments": "carve test \#(date)"}"#
            .write(toFile: directory + "/info.json", atomically: false, encoding: .utf8)
        return directory
    }

    func isSubvolume(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR && info.st_ino == 256
    }

    /// Every `snapshots/DATE` as names and file contents (a subvolume as "subvolume").
    func tree(_ disk: DeletionDisk) throws -> [String: [String: String]] {
        let snapshots = disk.mountpoint + "/" + Self.snapshots
        var tree: [String: [String: String]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: snapshots) {
            var entries: [String: String] = [:]
            for entry in try FileManager.default.contentsOfDirectory(atPath: snapshots + "/" + name) {
                let path = snapshots + "/" + name + "/" + entry
                // Files.text: Foundation's reader leaks on an empty file (the marker).
                entries[entry] = isSubvolume(path) ? "subvolume" : Files.text(path) ?? "unreadable"
            }
            tree[name] = entries
        }
        return tree
    }

    func finished(_ directory: String, would: Bool = false) -> String {
        "carve: \(would ? "would finish" : "finished") removing the metadata of timeshift snapshot \((directory as NSString).lastPathComponent) (\(directory)) left by an interrupted run"
    }

    @Test(.integration(needing: "strace"))
    func aSIGKILLAfterTheLastSubvolumeAndOneInTheNextRunsFinishingAreBothFinished() throws {
        try withDeletionDisk { disk in
            try disk.snapshot("other")
            try disk.snapshot("another")
            let killedDate = try timeshift(disk, "2026-11-01_12-00-01")
            let kept = try timeshift(disk, "2026-11-03_12-00-01", ["@"])
            // Left without subvolumes by someone else: no marker, not carve's to remove.
            let orphan = try timeshift(disk, "2026-11-02_12-00-01", [])
            let original = try tree(disk)

            // Killed on its first unlinkat: in a clean run, the metadata removal's first file
            // (info.json), after every `@…` of DATE is deleted: exactly in the window.
            let killed = try disk.carveKilled(
                entering: "unlinkat", 1, ["snapshots", "delete", killedDate + "/@", killedDate + "/@home", "--yes"])
            #expect(killed.status == SIGKILL, "\(killed.status): \(killed.stderr)")
            var expected = original
            let marker = try #require(try tree(disk)["2026-11-01_12-00-01"]?[".carve-deleting"], "no marker in DATE/")
            #expect(marker.contains("is deleting subvolume"), "\(marker)")
            expected["2026-11-01_12-00-01"] = [
                "info.json": original["2026-11-01_12-00-01"]!["info.json"]!, ".carve-deleting": marker,
            ]
            #expect(try tree(disk) == expected, "DATE/ keeps info.json and the marker, its @ and @home are gone")
            let subvolumes = try disk.subvolumes()
            #expect(!subvolumes.contains { $0.hasPrefix(Self.snapshots + "/2026-11-01_12-00-01/") })

            let listed = try disk.carve(["snapshots", "list", disk.mountpoint, "--manager", "timeshift", "--json"])
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect(listed.stdout.contains("2026-11-03_12-00-01/@"), "the kept timeshift snapshot: \(listed.stdout)")
            #expect(
                !listed.stdout.contains("2026-11-01_12-00-01"),
                "carve's listing cannot see it: only the marker finds it")

            let dry = try disk.carve(["snapshots", "delete", disk.mountpoint + "/snaps/other", "--dry-run"])
            #expect(dry.status == 0, "\(dry.stderr)")
            #expect(dry.stderr.contains(finished(killedDate, would: true)), "\(dry.stderr)")
            #expect(!dry.stderr.contains(orphan) && !dry.stderr.contains(kept), "\(dry.stderr)")
            #expect(try tree(disk) == expected, "a dry run changes nothing")
            #expect(try disk.subvolumes() == subvolumes)

            // The next run is killed while finishing DATE/, between its info.json and its marker.
            let again = try disk.carveKilled(
                entering: "unlinkat", 2, ["snapshots", "delete", disk.mountpoint + "/snaps/other", "--yes"])
            #expect(again.status == SIGKILL, "\(again.status): \(again.stderr)")
            // Emptied but for the marker, DATE/ took carve's retired name before the marker's unlink.
            let retired = ".carve-deleted-2026-11-01_12-00-01"
            expected["2026-11-01_12-00-01"] = nil
            expected[retired] = [".carve-deleting": marker]
            #expect(try tree(disk) == expected, "only the marker is left, under the retired name")
            #expect(try disk.subvolumes() == subvolumes, "other was not reached")

            let last = try disk.carve(["snapshots", "delete", disk.mountpoint + "/snaps/other", "--yes"])
            #expect(last.status == 0, "\(last.stderr)")
            let retiredPath = (killedDate as NSString).deletingLastPathComponent + "/" + retired
            #expect(last.stderr.contains(finished(retiredPath)), "\(last.stderr)")
            expected[retired] = nil
            #expect(
                try tree(disk) == expected,
                "DATE/ is gone; the unmarked orphan and the intact snapshot are as they were")
            #expect(try disk.subvolumes() == subvolumes.filter { $0 != "snaps/other" })

            let quiet = try disk.carve(["snapshots", "delete", disk.mountpoint + "/snaps/another", "--yes"])
            #expect(
                quiet.status == 0 && !quiet.stderr.contains("interrupted run"),
                "nothing is left to finish: \(quiet.stderr)")
            #expect(try tree(disk) == expected)
        }
    }

    /// SIGKILLs placed by strace at random points of a timeshift bulk delete: on
    /// entering a random ioctl (a state check, a subvolume's deletion: between a DATE's
    /// @ and @home, or before its first) or a random unlinkat (inside a DATE's
    /// metadata removal). After each, every DATE that lost an `@…` holds the marker,
    /// and the last run leaves `timeshift-btrfs/snapshots` empty.
    @Test(.integration(needing: "strace"))
    func killedAgainAndAgainNothingIsLeftHalfDone() throws {
        try withDeletionDisk { disk in
            for index in 0..<30 { _ = try timeshift(disk, String(format: "2026-11-01_12-00-%02d", index)) }
            let arguments = [
                "snapshots", "delete", "--filesystem", disk.mountpoint, "--manager", "timeshift", "--all", "--yes",
            ]
            var left = 60
            for round in 1...4 {
                // A run lists with ~14 ioctls and one per DATE, then spends 3 per subvolume
                // (two state checks and the deletion) and 2 unlinkats per DATE: both
                // bounds are reached by every run, and 4 rounds leave some for the last.
                let call = round.isMultiple(of: 2) ? "unlinkat" : "ioctl"
                let when = call == "ioctl" ? Int.random(in: 10...(10 + left)) : Int.random(in: 1...max(1, left / 2))
                let killed = try disk.carveKilled(entering: call, when, arguments)
                let place = "round \(round), killed at \(call) \(when)"
                #expect(killed.status == SIGKILL, "\(place): \(killed.status) \(killed.stderr)")
                for (name, entries) in try tree(disk) where entries["@"] == nil || entries["@home"] == nil {
                    #expect(
                        entries[".carve-deleting"] != nil,
                        "\(place): \(name)/ lost a subvolume and has no marker: \(entries.keys.sorted())")
                }
                left = try disk.subvolumes().filter { $0.hasPrefix(Self.snapshots) }.count
                #expect(left > 0, "\(place): nothing left for the next rounds")
            }
            let last = try disk.carve(arguments)
            #expect(last.status == 0, "\(last.stderr)")
            #expect(try tree(disk).isEmpty, "\(last.stderr)")
            #expect(try disk.subvolumes() == ["data", "home"])
        }
    }

    /// @ deleted, @home refused (mounted): the marker stays, every run says the
    /// snapshot may be partly deleted and changes nothing, and deleting @home finishes DATE.
    @Test func aSnapshotWhoseHomeCouldNotGoKeepsItsMarkerUntilTheRestIsDeleted() throws {
        try withDeletionDisk { disk in
            try disk.snapshot("other")
            let date = try timeshift(disk, "2026-11-01_12-00-01")
            let elsewhere = try disk.disk.mount(
                disk.disk.device, options: "subvol=\(Self.snapshots)/2026-11-01_12-00-01/@home", name: "home")
            let first = try disk.carve(["snapshots", "delete", date + "/@", date + "/@home", "--yes"])
            #expect(first.status != 0, "@home is mounted: \(first.stderr)")
            #expect(first.stdout.contains("1 protected"), "\(first.stdout)")
            #expect(first.stderr.contains("subvolume is mounted at \(elsewhere)"), "\(first.stderr)")
            let left = try tree(disk)["2026-11-01_12-00-01"] ?? [:]
            #expect(left.keys.sorted() == [".carve-deleting", "@home", "info.json"], "\(left)")

            let next = try disk.carve(["snapshots", "delete", disk.mountpoint + "/snaps/other", "--yes"])
            #expect(next.status == 0, "\(next.stderr)")
            #expect(
                next.stderr.contains(
                    "carve: warning: timeshift snapshot 2026-11-01_12-00-01 (\(date)) may be partly deleted by an interrupted run (@home left): deleting the rest with carve finishes it"
                ),
                "\(next.stderr)")
            #expect(try tree(disk)["2026-11-01_12-00-01"] == left, "kept as it is, marker and all")

            try disk.disk.unmount(elsewhere)
            let rest = try disk.carve(["snapshots", "delete", date + "/@home", "--yes"])
            #expect(rest.status == 0, "\(rest.stderr)")
            #expect(rest.stderr.contains("carve: removed its timeshift metadata \(date)"), "\(rest.stderr)")
            #expect(try tree(disk).isEmpty)
            #expect(try disk.subvolumes() == ["data", "home"])
        }
    }

    /// Another filesystem mounted at `timeshift-btrfs/snapshots` is not looked into:
    /// a warning, and its marked DATE stays.
    @Test func aSnapshotsDirectoryOnAnotherFilesystemIsLeftAlone() throws {
        try withDeletionDisk { disk in
            try disk.snapshot("other")
            let snapshots = disk.mountpoint + "/" + Self.snapshots
            try FileManager.default.createDirectory(atPath: snapshots, withIntermediateDirectories: true)
            try Shell.check(["mount", "-t", "tmpfs", "-o", "size=1M", "carve-test", snapshots])
            defer { _ = try? Shell.run(["umount", snapshots]) }
            try FileManager.default.createDirectory(
                atPath: snapshots + "/2026-01-01_00-00-01", withIntermediateDirectories: false)
            try "x".write(
                toFile: snapshots + "/2026-01-01_00-00-01/.carve-deleting", atomically: false, encoding: .utf8)
            let run = try disk.carve(["snapshots", "delete", disk.mountpoint + "/snaps/other", "--yes"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(
                run.stderr.contains("carve: warning: cannot look for deletions left unfinished in \(snapshots): "),
                "\(run.stderr)")
            #expect(!run.stderr.contains("finished removing"), "\(run.stderr)")
            #expect(FileManager.default.fileExists(atPath: snapshots + "/2026-01-01_00-00-01/.carve-deleting"))
            #expect(try disk.subvolumes() == ["data"])
        }
    }

    /// What the sweep must never take for a marked DATE of carve's.
    @Test func onlyARealMarkerWithNoSubvolumeIsFinished() throws {
        try withDeletionDisk { disk in
            try disk.snapshot("other")
            let snapshots = disk.mountpoint + "/" + Self.snapshots
            let outside = disk.disk.directory + "/outside"
            try Shell.check([
                "python3", "-c",
                """
                import os, sys
                base, outside = sys.argv[1], sys.argv[2]
                def tree(at, files):
                    os.makedirs(at, exist_ok=True)
                    for name, text in files.items():
                        if text is None: os.makedirs(os.path.join(at, name))
                        else: open(os.path.join(at, name), "w").write(text)
                mark = {".carve-deleting": "x", "info.json": "{}"}
                tree(outside + "/linked", mark)
                tree(outside + "/target", {"file": "kept"})
                tree(base, {})
                os.symlink(outside + "/linked", base + "/2026-01-01_00-00-01")
                tree(base + "/2026-01-01_00-00-02", dict(mark, **{"@": None}))
                tree(base + "/2026-01-01_00-00-03", {".carve-deleting": None, "info.json": "{}"})
                tree(base + "/not a date", mark)
                tree(base + "/2026-01-01_00-00-05", mark)
                os.symlink(outside + "/target", base + "/2026-01-01_00-00-05/@home")
                tree(base + "/2026-01-01_00-00-06", mark)
                tree(base + "/2026-01-01_00-00-07", {"info.json": "{}"})
                """, snapshots, outside,
            ])
            // A subvolume named like a DATE, marked: not timeshift's plain directory.
            try Shell.check(["btrfs", "-q", "subvolume", "create", snapshots + "/2026-01-01_00-00-04"])
            try "x".write(
                toFile: snapshots + "/2026-01-01_00-00-04/.carve-deleting", atomically: false, encoding: .utf8)
            let before = try Shell.check(["find", snapshots, outside, "-printf", "%p %y\\n"])

            let run = try disk.carve(["snapshots", "delete", disk.mountpoint + "/snaps/other", "--yes"])
            #expect(run.status == 0, "\(run.stderr)")
            let notes = run.stderr.split(separator: "\n").filter { $0.contains("interrupted run") }
            #expect(
                notes == [
                    "carve: finished removing the metadata of timeshift snapshot 2026-01-01_00-00-06 (\(snapshots)/2026-01-01_00-00-06) left by an interrupted run",
                    "carve: warning: timeshift snapshot 2026-01-01_00-00-02 (\(snapshots)/2026-01-01_00-00-02) may be partly deleted by an interrupted run (@ left): deleting the rest with carve finishes it",
                    "carve: warning: timeshift snapshot 2026-01-01_00-00-05 (\(snapshots)/2026-01-01_00-00-05) may be partly deleted by an interrupted run (@home left): deleting the rest with carve finishes it",
                ], "\(run.stderr)")
            let expected = before.split(separator: "\n").filter { !$0.hasPrefix("\(snapshots)/2026-01-01_00-00-06") }
            #expect(
                try Shell.check(["find", snapshots, outside, "-printf", "%p %y\\n"]).split(separator: "\n") == expected,
                "only 06/ is gone: the symlinked DATE and its target, @ as a plain directory, a marker that is a directory, a name that is no date, a subvolume and the unmarked 07 stay"
            )
        }
    }
}
