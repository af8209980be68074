import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// `carve snapshots delete` on real loop-backed btrfs, checked with btrfs-progs.
@Suite(.serialized, .integration())
struct SnapshotsDeleteIntegrationTests {
    @Test func bulkDeleteByEachSelectionOption() throws {
        try withDeletionDisk { disk in
            let mnt = disk.mountpoint
            try Shell.check(["btrfs", "subvolume", "create", mnt + "/other"])
            for name in ["old.1", "old.2"] { try disk.snapshot(name) }
            sleep(3)
            let boundaryDate = Date()
            let boundary = ISO8601DateFormatter().string(from: boundaryDate.foundation)
            sleep(2)
            for name in ["new.1", "new.2", "new.3"] { try disk.snapshot(name) }
            try disk.snapshot("other.1", of: "other")
            func delete(_ options: [String]) throws -> [String] {
                let result = try disk.carve(
                    ["snapshots", "delete", "--filesystem", mnt] + options + ["--yes", "--json"])
                #expect(result.status == 0, "\(options): \(result.stderr)")
                return try disk.subvolumes()
            }
            #expect(
                try delete(["--match", "new.3"]) == [
                    "data", "other", "snaps/new.1", "snaps/new.2", "snaps/old.1", "snaps/old.2", "snaps/other.1",
                ])
            #expect(
                try delete(["--source", mnt + "/other"]) == [
                    "data", "other", "snaps/new.1", "snaps/new.2", "snaps/old.1", "snaps/old.2",
                ])
            #expect(
                try delete(["--before", boundary, "--keep-last", "3"]) == [
                    "data", "other", "snaps/new.1", "snaps/new.2", "snaps/old.2",
                ])
            // --older-than reads the manager's date: a btrbk name from 2020 is years old
            // whatever its otime, and nothing else here is a year old.
            try disk.snapshot("data.20200101T1200")
            #expect(
                try delete(["--older-than", "1y"]) == ["data", "other", "snaps/new.1", "snaps/new.2", "snaps/old.2"])
            #expect(
                try delete(["--before", boundary, "--manager", "plain"]) == [
                    "data", "other", "snaps/new.1", "snaps/new.2",
                ])
            #expect(try delete(["--after", boundary, "--keep-last", "1"]) == ["data", "other", "snaps/new.2"])
            // The plain subvolumes survive --all: they are not snapshots.
            #expect(try delete(["--all"]) == ["data", "other"])
            #expect(
                try disk.carve(["snapshots", "delete", "--filesystem", mnt, "--all", "--yes"]).stdout
                    == "no snapshots matched\n")
        }
    }

    @Test func aMountedSnapshotIsRefusedWithItsReasonWhileTheOthersGo() throws {
        try withDeletionDisk { disk in
            for name in ["s1", "s2", "s3"] { try disk.snapshot(name) }
            let elsewhere = try disk.disk.mount(disk.disk.device, options: "subvol=snaps/s2", name: "elsewhere")
            let named = try disk.carve([
                "snapshots", "delete", disk.mountpoint + "/snaps/s2", disk.mountpoint + "/snaps/s3", "--yes",
            ])
            #expect(named.status == 4, "\(named.stderr)")
            // Named by its path on the filesystem, not by the mount that makes it busy.
            #expect(
                named.stderr.contains("\(disk.mountpoint)/snaps/s2: subvolume is mounted at \(elsewhere) (EBUSY)"),
                "\(named.stderr)")
            #expect(try disk.subvolumes() == ["data", "snaps/s1", "snaps/s2"])
            let all = try disk.carve([
                "snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--yes", "--json",
            ])
            #expect(all.status == 0, "\(all.stderr)")
            let json = try DeletionDisk.json(all)
            #expect(
                (json["protected"] as? [[String: Any]])?.first?["reason"] as? String
                    == "subvolume is mounted at \(elsewhere) (EBUSY)")
            #expect(try disk.subvolumes() == ["data", "snaps/s2"])
            #expect(FileManager.default.fileExists(atPath: elsewhere + "/"))
        }
    }

    @Test func theDefaultSubvolumeIsRefusedEvenWhenItIsASnapshot() throws {
        try withDeletionDisk { disk in
            for name in ["s1", "s2"] { try disk.snapshot(name) }
            try Shell.check(["btrfs", "subvolume", "set-default", disk.mountpoint + "/snaps/s1"])
            let result = try disk.carve([
                "snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--yes", "--syslog", "--json",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let protected = try DeletionDisk.json(result)["protected"] as? [[String: Any]] ?? []
            #expect(protected.first?["reason"] as? String == "it is the filesystem's default subvolume")
            #expect(try disk.subvolumes() == ["data", "snaps/s1"])
            let named = try disk.carve(["snapshots", "delete", disk.mountpoint + "/snaps/s1", "--yes"])
            #expect(named.status == 1)
            try Shell.check(["btrfs", "subvolume", "set-default", "5", disk.mountpoint])
        }
    }

    @Test func nestedSubvolumesNeedRecursive() throws {
        try withDeletionDisk { disk in
            try Shell.check([
                "btrfs", "subvolume", "snapshot", disk.mountpoint + "/data", disk.mountpoint + "/snaps/rw",
            ])
            try Shell.check(["btrfs", "subvolume", "create", disk.mountpoint + "/snaps/rw/inner"])
            let refused = try disk.carve(["snapshots", "delete", disk.mountpoint + "/snaps/rw", "--yes"])
            #expect(refused.status == 1)
            #expect(refused.stdout.contains("it has nested subvolumes (use --recursive"))
            let done = try disk.carve(["snapshots", "delete", disk.mountpoint + "/snaps/rw", "--yes", "--recursive"])
            #expect(done.status == 0, "\(done.stderr)")
            #expect(try disk.subvolumes() == ["data"])
        }
    }

    @Test func timeshiftsDirectoryGoesWithItsLastSubvolume() throws {
        try withDeletionDisk { disk in
            let directory = disk.mountpoint + "/timeshift-btrfs/snapshots/2026-11-01_12-00-01"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Shell.check(["btrfs", "subvolume", "create", disk.mountpoint + "/home"])
            try Shell.check(["btrfs", "subvolume", "snapshot", "-r", disk.mountpoint + "/data", directory + "/@"])
            try Shell.check(["btrfs", "subvolume", "snapshot", "-r", disk.mountpoint + "/home", directory + "/@home"])
            try #"{"created": "1793534401", "tags": "D", "comments": "carve test"}"#
                .write(toFile: directory + "/info.json", atomically: false, encoding: .utf8)
            let first = try disk.carve(["snapshots", "delete", directory + "/@", "--yes"])
            #expect(first.status == 0, "\(first.stderr)")
            // @home is still in it: timeshift's directory and info.json stay.
            #expect(FileManager.default.fileExists(atPath: directory + "/info.json"))
            let rest = try disk.carve([
                "snapshots", "delete", "--filesystem", disk.mountpoint, "--manager", "timeshift", "--yes",
            ])
            #expect(rest.status == 0, "\(rest.stderr)")
            #expect(rest.stderr.contains("removed its timeshift metadata \(directory)"))
            #expect(!FileManager.default.fileExists(atPath: directory))
            #expect(try disk.subvolumes() == ["data", "home"])
        }
    }

    @Test func badInputDeletesNothing() throws {
        try withDeletionDisk { disk in
            try disk.snapshot("s1")
            let cases: [[String]] = [
                ["snapshots", "delete", disk.mountpoint + "/snaps/missing", "--yes"],
                ["snapshots", "delete", disk.mountpoint + "/data", "--filesystem", "/tmp", "--yes"],
                ["snapshots", "delete", "/proc", "--yes"],
                ["snapshots", "delete", "--filesystem", disk.mountpoint, "--id", "9999", "--yes"],
                ["snapshots", "delete", "nosuchconfig:3", "--filesystem", disk.mountpoint, "--yes"],
                ["snapshots", "delete", "root:17-3", "--yes"],
                ["snapshots", "delete", "--filesystem", disk.mountpoint, "--yes"],
                ["snapshots", "thin", disk.mountpoint, "--free", "0", "--yes"],
                ["snapshots", "thin", disk.mountpoint, "--free", "10XB", "--yes"],
            ]
            for arguments in cases {
                let result = try disk.carve(arguments)
                #expect(result.status == 64, "\(arguments): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
            }
            #expect(try disk.subvolumes() == ["data", "snaps/s1"])
        }
    }

    /// The other deleting carve is this test process holding the lock through carve's own
    /// lock code (FileDeletionLock, flock on the same file), so the contention is certain:
    /// a real first run was caught holding the lock only by polling, and under load the
    /// poll missed it.
    @Test func twoConcurrentDeletesOneGets75() throws {
        try withDeletionDisk { disk in
            for index in 1...20 { try disk.snapshot("s\(index)") }
            let holder = try FileDeletionLock(path: disk.lockFile).acquire(timeout: 0)
            var released = false
            defer { if !released { holder.release() } }
            let pid = "\(getpid())"
            #expect(Files.text(disk.lockFile)?.trimmingWhitespace == pid)

            let second = try disk.carve(["snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--yes"])
            #expect(second.status == 75, "\(second.stderr)")
            #expect(
                second.stderr.split(separator: "\n").last
                    == "carve: another carve (pid \(pid)) holds \(disk.lockFile): it is deleting snapshots; nothing deleted (--lock-timeout SECONDS waits for it)"
            )
            #expect(try disk.subvolumes().count == 21, "the refused run deleted nothing")

            let waiting = try disk.startCarve([
                "snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--yes", "--lock-timeout", "30",
            ])
            usleep(300_000)
            #expect(waiting.isRunning, "--lock-timeout waits while the lock is held")
            holder.release()
            released = true
            waiting.waitUntilExit()
            #expect(waiting.terminationStatus == 0, "--lock-timeout waits for the holder to end")
            #expect(try disk.subvolumes() == ["data"])
        }
    }

    @Test(.integration(needing: "strace"))
    func aRunKilledHalfWayIsCompletedByTheNextRun() throws {
        try withDeletionDisk(quotas: true) { disk in
            for index in 1...300 { try disk.snapshot("s\(index)", mebibytes: index % 50 == 0 ? 1 : 0) }
            // SIGKILL as soon as the audit trail shows five deletions: in the middle of the run.
            let started = try disk.startCarve(
                ["snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--yes"], afterDeletions: 5,
                pacing: 1_000)
            let run = started.run
            kill(started.carve, SIGKILL)
            run.waitUntilExit()
            #expect(run.terminationReason == .uncaughtSignal, "the run ended before it was killed")
            let left = try disk.subvolumes().count
            #expect(left > 1 && left < 301, "\(left) subvolumes left")
            let again = try disk.carve([
                "snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--yes", "--json",
            ])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(DeletionDisk.ids(try DeletionDisk.json(again)["deleted"]).count == left - 1)
            #expect(try disk.subvolumes() == ["data"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: disk.mountpoint + "/snaps").isEmpty)
        }
    }

    @Test(.integration(needing: "strace"))
    func ctrlCStopsAfterTheSnapshotBeingDeletedAndReports() throws {
        try withDeletionDisk { disk in
            for index in 1...300 { try disk.snapshot("s\(index)") }
            let started = try disk.startCarve(
                ["snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--yes", "--json"], afterDeletions: 3,
                pacing: 1_000)
            let run = started.run
            var seen = started.seen
            kill(started.carve, SIGINT)
            let output = started.stdout.fileHandleForReading.readDataToEndOfFile()
            seen += String(decoding: started.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            run.waitUntilExit()
            #expect(
                run.terminationReason == .exit && run.terminationStatus == 130,
                "\(run.terminationStatus): \(seen.suffix(300))")
            #expect(seen.contains("carve: interrupted: stopping after the snapshot being deleted"))
            let json = try DeletionDisk.json(String(decoding: output, as: UTF8.self))
            #expect(json["interrupted"] as? Bool == true)
            let deleted = DeletionDisk.ids(json["deleted"]).count
            let left = try disk.subvolumes().count
            #expect(deleted >= 3 && deleted < 300, "\(deleted) deleted")
            #expect(left == 301 - deleted, "the report says \(deleted) deleted, btrfs shows \(left) subvolumes")
        }
    }

    @Test func waitMeasuresWhatTheEstimateSaid() throws {
        try withDeletionDisk(size: "2G", quotas: true) { disk in
            for index in 1...6 { try disk.snapshot("s\(index)", mebibytes: 16 + index, exclusive: true) }
            try Shell.check(["sync"])
            try Shell.check(["btrfs", "quota", "rescan", "-w", disk.mountpoint])
            let result = try disk.carve([
                "snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--yes", "--wait", "--json",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let json = try DeletionDisk.json(result)
            let estimated = try #require(json["estimated_reclaim"] as? Int)
            let measured = try #require(json["measured_reclaim"] as? Int)
            #expect(estimated >= (16 + 1 + 16 + 6) * 3 << 20, "each snapshot holds its own file")
            let tolerance = estimated / 20 + 4 << 20
            #expect(abs(estimated - measured) <= tolerance, "estimated \(estimated), measured \(measured)")
        }
    }
}

/// statfs places a path in its filesystem and subvolume, as `btrfs subvolume list` numbers them.
@Suite(.serialized, .integration())
struct LocateIntegrationTests {
    @Test func statfsGivesTheSubvolumeOfEveryPath() throws {
        try withDeletionDisk { disk in
            for name in ["s1", "s2"] { try disk.snapshot(name) }
            try FileManager.default.createDirectory(
                atPath: disk.mountpoint + "/snaps/s1/../plain-dir", withIntermediateDirectories: true)
            let backend = BtrfsSnapshotBackend()
            let mounted = try backend.mountedFilesystems()
            let ids = try Shell.check(["btrfs", "subvolume", "list", disk.mountpoint]).split(separator: "\n").reduce(
                into: [String: UInt64]()
            ) {
                let fields = $1.split(separator: " ")
                $0[String(fields.last!)] = UInt64(fields[1])
            }
            for (path, id) in ids {
                let location = backend.locate(disk.mountpoint + "/" + path, among: mounted)
                #expect(location?.volumeID == id, "\(path)")
                #expect(location?.filesystem.mountpoint == disk.mountpoint)
            }
            #expect(backend.locate(disk.mountpoint + "/snaps/plain-dir", among: mounted)?.volumeID == 5)
            #expect(backend.locate(disk.mountpoint, among: mounted.filter { $0.mountpoint != disk.mountpoint }) == nil)
            #expect(backend.locate("/proc", among: mounted) == nil)
        }
    }
}
