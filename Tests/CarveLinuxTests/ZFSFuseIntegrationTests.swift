import CarveTestSupport
import Foundation
import Testing

/// carve (the built binary) on a real ZFS: Debian 12's zfs-fuse, a pool on a sparse file
/// holding three datasets with zfs-auto-snapshot, sanoid and plain snapshots, a held
/// snapshot, a clone's origin and syncoid's replication base. What remains is what
/// `zfs list` says; how many destroys ran is what `zpool history` recorded.
@Suite(.serialized, .integration(needing: "zfs-fuse"))
struct ZFSFuseIntegrationTests {
    static var carve: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("carve").path
    }

    func carve(_ arguments: String...) throws -> Shell.Result {
        try Shell.run([Self.carve] + arguments)
    }

    static let auto = ZFSScenario.auto
    static let sanoid = ZFSScenario.sanoid
    static let syncoid = ZFSScenario.syncoid

    /// The pool of the issue's "done when": returns every snapshot's name.
    @discardableResult
    func scenario(_ zfs: ZFSFuse, pool: String) throws -> Set<String> {
        try zfs.pool(pool)
        for dataset in ["auto", "sanoid", "plain"] { try zfs.zfs("create", "\(pool)/\(dataset)") }
        func snapshot(_ dataset: String, _ name: String) throws {
            // Some data of its own in each, so `used` is not zero for all.
            let file = zfs.mountpoint(of: pool) + "/\(dataset)/\(name.filter { $0.isLetter || $0.isNumber })"
            try Data(repeating: 0x61, count: 65_536).write(to: URL(fileURLWithPath: file))
            try zfs.zfs("snapshot", "\(pool)/\(dataset)@\(name)")
            try FileManager.default.removeItem(atPath: file)
        }
        for name in Self.auto { try snapshot("auto", name) }
        for name in Self.sanoid { try snapshot("sanoid", name) }
        // The plain ones a second apart, so the newest of them is one.
        try snapshot("plain", "base")
        try zfs.zfs("clone", "\(pool)/plain@base", "\(pool)/work")
        sleep(1)
        try snapshot("plain", "held")
        try zfs.zfs("hold", "keep", "\(pool)/plain@held")
        for name in Self.syncoid { try snapshot("plain", name) }
        sleep(1)
        try snapshot("plain", "before upgrade")
        return try zfs.snapshots(of: pool)
    }

    /// What survives every bulk deletion: the held snapshot, the clone's origin and the
    /// newest syncoid snapshot (the base of the next incremental send).
    func survivors(_ pool: String) -> Set<String> {
        ["\(pool)/plain@base", "\(pool)/plain@held", "\(pool)/plain@\(Self.syncoid[1])"]
    }

    @Test func listShowsEveryOwnerAndTheZFSFields() throws {
        try ZFSFuse.with { zfs in
            let everything = try scenario(zfs, pool: "carvelist")
            let result = try carve("snapshots", "list", "carvelist", "--json")
            #expect(result.status == 0, "\(result.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            let rows = object?["snapshots"] as? [[String: Any]] ?? []
            let byPath = Dictionary(uniqueKeysWithValues: rows.map { ($0["path"] as? String ?? "", $0) })
            #expect(Set(byPath.keys) == everything)
            for name in Self.auto {
                #expect(byPath["carvelist/auto@\(name)"]?["manager"] as? String == "zfs-auto-snapshot")
            }
            for name in Self.sanoid { #expect(byPath["carvelist/sanoid@\(name)"]?["manager"] as? String == "sanoid") }
            for name in Self.syncoid { #expect(byPath["carvelist/plain@\(name)"]?["manager"] as? String == "syncoid") }
            #expect(byPath["carvelist/plain@before upgrade"]?["manager"] as? String == "plain")
            #expect(byPath["carvelist/auto@\(Self.auto[3])"]?["type"] as? String == "hourly")
            #expect(byPath["carvelist/auto@\(Self.auto[0])"]?["created"] as? String == "2026-11-20T00:00:00Z")
            let held = byPath["carvelist/plain@held"]
            #expect(held?["holds"] as? Int == 1 && held?["filesystem_type"] as? String == "zfs")
            #expect(held?["source"] as? String == "carvelist/plain")
            #expect(byPath["carvelist/plain@base"]?["clones"] as? [String] == ["carvelist/work"])
            #expect(byPath["carvelist/plain@\(Self.syncoid[1])"]?["chain_parent"] as? Bool == true)
            #expect(byPath["carvelist/plain@\(Self.syncoid[0])"]?["chain_parent"] as? Bool == false)
            // used and referenced are zfs's own.
            let used = try Shell.check([ZFSFuse.zfs, "get", "-H", "-p", "-o", "value", "used", "carvelist/plain@held"])
            #expect(
                (held?["exclusive"] as? NSNumber)?.stringValue == used.trimmingCharacters(in: .whitespacesAndNewlines))
            // A dataset by name or by a path inside it lists its own snapshots alone.
            let plain = try carve("snapshots", "list", "carvelist/plain", "--output", "PATH", "--json")
            let path = try carve(
                "snapshots", "list", zfs.mountpoint(of: "carvelist") + "/plain", "--output", "PATH", "--json")
            #expect(plain.status == 0 && plain.stdout == path.stdout)
            #expect(plain.stdout.contains("carvelist/plain@held") && !plain.stdout.contains("carvelist/auto@"))
        }
    }

    @Test func bulkDeletionKeepsHoldsClonesAndTheReplicationBase() throws {
        try ZFSFuse.with { zfs in
            let everything = try scenario(zfs, pool: "carveall")
            let dryRun = try carve("snapshots", "delete", "--filesystem", "carveall", "--all", "--dry-run")
            #expect(dryRun.status == 0, "\(dryRun.stderr)")
            #expect(try zfs.snapshots(of: "carveall") == everything, "a dry run deletes nothing")
            #expect(dryRun.stderr.contains("lower bound"), "zfs-fuse has no destroy -n: \(dryRun.stderr)")
            #expect(dryRun.stdout.contains("carveall/plain@held: it has 1 user hold"))
            #expect(dryRun.stdout.contains("carveall/plain@base: it is the origin of carveall/work"))
            #expect(dryRun.stdout.contains("carveall/plain@\(Self.syncoid[1]): the newest syncoid snapshot"))

            let result = try carve("snapshots", "delete", "--filesystem", "carveall", "--all", "--yes")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try zfs.snapshots(of: "carveall") == survivors("carveall"))
            // zfs-fuse takes no comma list: one destroy per snapshot, none for the survivors.
            #expect(try zfs.destroyCommands(of: "carveall").count == everything.count - 3)
        }
    }

    @Test func olderThanAndRetentionCountPerSeries() throws {
        try ZFSFuse.with { zfs in
            let everything = try scenario(zfs, pool: "carveold")
            let old = try carve("snapshots", "delete", "--filesystem", "carveold", "--older-than", "0d", "--yes")
            #expect(old.status == 0, "\(old.stderr)")
            #expect(try zfs.snapshots(of: "carveold") == survivors("carveold"))
            #expect(everything.count > 3)

            #expect(try scenario(zfs, pool: "carvekeep") == names("carvekeep"))
            let kept = try carve("snapshots", "delete", "--filesystem", "carvekeep", "--keep-daily", "2", "--yes")
            #expect(kept.status == 0, "\(kept.stderr)")
            // Two days of each series: zfs-auto-snapshot's daily and hourly labels, sanoid's
            // daily and hourly types, the plain snapshots (made today: the newest stays).
            let gone: Set<String> = [
                "carvekeep/auto@\(Self.auto[0])", "carvekeep/auto@\(Self.auto[3])",
                "carvekeep/sanoid@\(Self.sanoid[0])",
            ]
            #expect(try zfs.snapshots(of: "carvekeep") == names("carvekeep").subtracting(gone))
        }
    }

    /// The names of the scenario's snapshots in `pool`, as the scenario makes them.
    private func names(_ pool: String) -> Set<String> {
        Set(
            (Self.auto.map { "\(pool)/auto@\($0)" }) + Self.sanoid.map { "\(pool)/sanoid@\($0)" }
                + (["base", "held", "before upgrade"] + Self.syncoid).map { "\(pool)/plain@\($0)" })
    }

    @Test func namedHoldsAndClonesAreRefusedWithZFSsReason() throws {
        try ZFSFuse.with { zfs in
            let everything = try scenario(zfs, pool: "carvenamed")
            let held = try carve("snapshots", "delete", "carvenamed/plain@held", "--yes")
            #expect(
                held.status == 1 && (held.stdout + held.stderr).contains("dataset is busy"),
                "\(held.stderr)\(held.stdout)")
            let origin = try carve("snapshots", "delete", "carvenamed/plain@base", "--yes")
            #expect(origin.status == 1 && (origin.stdout + origin.stderr).contains("snapshot has dependent clones"))
            #expect(try zfs.snapshots(of: "carvenamed") == everything)
            // A name with a space survives listing and deletion.
            let spaced = try carve("snapshots", "delete", "carvenamed/plain@before upgrade", "--yes")
            #expect(spaced.status == 0, "\(spaced.stderr)")
            #expect(try zfs.snapshots(of: "carvenamed") == everything.subtracting(["carvenamed/plain@before upgrade"]))
            // An unknown dataset or snapshot: bad input, with zfs's own words.
            let unknown = try carve("snapshots", "list", "carvenamed/nope")
            #expect(
                unknown.status == 64 && unknown.stderr.contains("cannot open 'carvenamed/nope': dataset does not exist")
            )
            let missing = try carve("snapshots", "delete", "carvenamed/plain@nope", "--yes")
            #expect(missing.status == 64 && missing.stderr.contains("dataset does not exist"))
        }
    }

    @Test func aDaemonThatDoesNotAnswerLeavesZFSOutWithAWarning() throws {
        let zfs = try ZFSFuse()
        zfs.cleanup()
        let result = try carve("snapshots", "list")
        #expect(result.stderr.contains("zfs does not answer"), "\(result.stderr)")
        // Exit 1 only when nothing could be listed (other tests may have a btrfs mounted).
        #expect(result.status == 0 || result.stderr.contains("no filesystem could be listed"))
        let named = try carve("snapshots", "list", "tank/home")
        #expect(named.status != 0)
    }

    @Test func checkOnAPoolsPartitionSaysItCannotShrink() throws {
        // The loop disk outlives the daemon: the pool is destroyed before its device goes.
        try withLoopDisk(size: "400M", sfdisk: "label: gpt\nsize=300MiB, type=L\n") { disk in
            try ZFSFuse.with { zfs in
                try zfs.pool("carvecheck", on: disk.partition(1))
                // Only a running udevd answers a trigger's --settle: without one it waits forever.
                Udevd.settle([disk.partition(1)])
                let blkid = try Shell.check(["blkid", "-p", "-o", "value", "-s", "TYPE", disk.partition(1)])
                #expect(blkid.trimmingCharacters(in: .whitespacesAndNewlines) == "zfs_member")
                let result = try carve("check", disk.partition(1), "--shrink-to", "100M")
                #expect(result.status == 3, "\(result.stdout)\(result.stderr)")
                #expect(!result.stdout.contains("fits") || result.stdout.contains("does not fit"))
                #expect(result.stdout.contains("ZFS pool carvecheck"), "\(result.stdout)")
                #expect(result.stdout.contains("1 top-level vdev"))
                #expect(result.stdout.contains("zpool replace carvecheck \(disk.partition(1)) NEWDEVICE"))
                #expect(result.stdout.contains("zfs send -R carvecheck@move"))
                let json = try carve("check", disk.partition(1), "--shrink-to", "100M", "--json")
                #expect(json.status == 3 && json.stdout.contains("\"cannot-shrink\""))
            }
        }
    }

    @Test func aSnapshotAZFSSendReadsIsInUse() throws {
        try ZFSFuse.with { zfs in
            try zfs.pool("carvesend")
            try zfs.zfs("create", "carvesend/data")
            let file = zfs.mountpoint(of: "carvesend") + "/data/big"
            try Data(repeating: 0x62, count: 1 << 20).write(to: URL(fileURLWithPath: file))
            try zfs.zfs("snapshot", "carvesend/data@sent")
            try zfs.zfs("snapshot", "carvesend/data@other")
            // A send that blocks on a reader that never reads, as a slow backup would.
            let send = Process()
            send.executableURL = URL(fileURLWithPath: "/bin/sh")
            send.arguments = ["-c", "\(ZFSFuse.zfs) send carvesend/data@sent | sleep 60"]
            send.standardOutput = FileHandle.nullDevice
            try send.run()
            defer { Self.stop(send) }
            var sending = false
            for _ in 0..<100 where !sending {
                sending = Self.children(of: send.processIdentifier).contains { Self.command($0) == "zfs" }
                if !sending { usleep(50_000) }
            }
            #expect(sending && Self.children(of: send.processIdentifier).count == 2)
            let result = try carve("snapshots", "delete", "--filesystem", "carvesend", "--all", "--yes")
            #expect(result.status == 0, "\(result.stderr)")
            #expect((result.stdout + result.stderr).contains("zfs send is reading it"), "\(result.stdout)")
            #expect(try zfs.snapshots(of: "carvesend") == ["carvesend/data@sent"])
        }
    }

    /// The processes whose parent is `pid`, from /proc.
    static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { child in
            let stat = (try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8)) ?? ""
            // pid (comm) state ppid …: the fields after the last ')'.
            guard let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid
        }
    }

    static func command(_ pid: Int32) -> String {
        ((try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .newlines)
    }

    /// Stops the shell and the two processes it started, each by its PID.
    static func stop(_ shell: Process) {
        for child in children(of: shell.processIdentifier) { kill(child, SIGKILL) }
        kill(shell.processIdentifier, SIGKILL)
        shell.waitUntilExit()
    }

    /// ZFS refuses `%`, `,` and bytes outside its name characters in a name (so a comma
    /// list is never ambiguous); a mountpoint may hold them, and a path through it works.
    @Test func oddNamesAndMountpointsSurvive() throws {
        try ZFSFuse.with { zfs in
            try zfs.pool("carveodd")
            for bad in ["a,b", "a%b"] {
                #expect(try Shell.run([ZFSFuse.zfs, "snapshot", "carveodd@\(bad)"]).status != 0, "zfs refuses \(bad)")
            }
            let place = zfs.directory + "/odd place, 100% full"
            try zfs.zfs("create", "-o", "mountpoint=\(place)", "carveodd/odd")
            try zfs.zfs("snapshot", "carveodd/odd@before the move")
            let listed = try carve("snapshots", "list", place, "--json")
            #expect(
                listed.status == 0 && listed.stdout.contains("\"carveodd/odd@before the move\""), "\(listed.stderr)")
            let deleted = try carve("snapshots", "delete", "--filesystem", place, "--all", "--yes")
            #expect(deleted.status == 0, "\(deleted.stderr)")
            #expect(try zfs.snapshots(of: "carveodd").isEmpty)
        }
    }
}
