import CarveCore
import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// `carve snapshots list` (the built binary) on real loop-backed btrfs filesystems,
/// compared with `btrfs subvolume list`, `btrfs qgroup show --raw` and snapper itself.
@Suite(.serialized, .integration())
struct SnapshotsListIntegrationTests {
    /// A fresh btrfs on a loop device, its top level mounted at `top`.
    final class Btrfs {
        let disk: LoopDisk
        let top: String
        init() throws {
            disk = try LoopDisk(size: "512M")
            try Shell.check(["mkfs.btrfs", "-q", "-f", disk.device])
            top = try disk.mount(disk.device, name: "top")
        }
        deinit { disk.cleanup() }

        func subvolume(_ path: String) throws {
            try Shell.check(["btrfs", "-q", "subvolume", "create", top + "/" + path])
        }
        func snapshot(_ source: String, _ path: String, readOnly: Bool = true) throws {
            let directory = (top + "/" + path as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Shell.check(
                ["btrfs", "-q", "subvolume", "snapshot"] + (readOnly ? ["-r"] : []) + [
                    top + "/" + source, top + "/" + path,
                ])
        }
        func write(_ path: String, _ text: String) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: top + "/" + path))
        }
        /// `btrfs subvolume list -u -q`: id → (path from the top level, uuid, parent uuid or nil).
        func reference(at mountpoint: String) throws -> [UInt64: (path: String, uuid: String, parent: String?)] {
            var result: [UInt64: (String, String, String?)] = [:]
            for line in try Shell.check(["btrfs", "subvolume", "list", "-u", "-q", mountpoint]).split(separator: "\n") {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
                guard let id = fields.firstIndex(of: "ID").flatMap({ UInt64(fields[$0 + 1]) }),
                    let parent = fields.firstIndex(of: "parent_uuid").map({ fields[$0 + 1] }),
                    let uuid = fields.firstIndex(of: "uuid").map({ fields[$0 + 1] }),
                    let path = line.range(of: " path ").map({ String(line[$0.upperBound...]) })
                else { continue }
                result[id] = (path, uuid, parent == "-" ? nil : parent)
            }
            return result
        }
    }

    static var carve: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("carve").path
    }

    /// Runs the binary and returns its JSON snapshots, stderr and status.
    func list(_ arguments: [String]) throws -> (snapshots: [[String: Any]], stderr: String, status: Int32) {
        let result = try Shell.run([Self.carve, "snapshots", "list", "--json"] + arguments)
        let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return ((object?["snapshots"] as? [[String: Any]]) ?? [], result.stderr, result.status)
    }

    @Test func listsEveryLayoutLikeBtrfsProgsAndNeverAPlainSubvolume() throws {
        let fs = try Btrfs()
        try fs.subvolume("@"); try fs.subvolume("@home"); try fs.subvolume("@home/nested"); try fs.subvolume("data")
        try fs.snapshot("@home", "snaps/home-1")
        try fs.snapshot("@home", "snaps/home-writable", readOnly: false)
        try fs.snapshot("@home", "btrbk/home.20261101T1200")
        try fs.snapshot("@home", "btrbk/home.20261101T1200_1")
        try fs.snapshot("@", "timeshift-btrfs/snapshots/2026-11-01_12-00-01/@")
        try fs.write(
            "timeshift-btrfs/snapshots/2026-11-01_12-00-01/info.json",
            #"{"created":"1793534401","tags":"O D","comments":"before upgrade"}"#)
        try fs.snapshot("@", "timeshift-btrfs/snapshots/2026-11-02_12-00-01/@")
        try fs.write("timeshift-btrfs/snapshots/2026-11-02_12-00-01/info.json", #"{"created": "#)
        try fs.snapshot("@home", "@home/nested-snapshot")

        let (snapshots, stderr, status) = try list([fs.top])
        #expect(status == 0, "\(stderr)")
        let reference = try fs.reference(at: fs.top)
        let byPath = Dictionary(uniqueKeysWithValues: snapshots.map { ($0["subvolume_path"] as? String ?? "", $0) })
        // Exactly the subvolumes btrfs-progs shows with a parent UUID, with its ids, uuids and paths.
        let expected = reference.filter { $0.value.parent != nil }
        #expect(Set(snapshots.compactMap { ($0["id"] as? NSNumber)?.uint64Value }) == Set(expected.keys))
        for (id, entry) in expected {
            let snapshot = try #require(byPath[entry.path], "no snapshot \(entry.path)")
            #expect((snapshot["id"] as? NSNumber)?.uint64Value == id)
            #expect(snapshot["uuid"] as? String == entry.uuid && snapshot["parent_uuid"] as? String == entry.parent)
            #expect(snapshot["path"] as? String == fs.top + "/" + entry.path && snapshot["reachable"] as? Bool == true)
        }
        #expect(byPath["data"] == nil && byPath["@home"] == nil && byPath["@home/nested"] == nil)
        #expect(byPath["btrbk/home.20261101T1200"]?["manager"] as? String == "btrbk")
        #expect(byPath["btrbk/home.20261101T1200_1"]?["manager"] as? String == "btrbk")
        #expect(byPath["snaps/home-1"]?["manager"] as? String == "plain")
        #expect(byPath["snaps/home-1"]?["source"] as? String == fs.top + "/@home")
        #expect(byPath["snaps/home-writable"]?["readonly"] as? Bool == false)
        let timeshift = byPath["timeshift-btrfs/snapshots/2026-11-01_12-00-01/@"]
        #expect(
            timeshift?["manager"] as? String == "timeshift" && timeshift?["description"] as? String == "before upgrade")
        #expect(timeshift?["tags"] as? [String] == ["O", "D"])
        #expect(byPath["timeshift-btrfs/snapshots/2026-11-02_12-00-01/@"]?["manager"] as? String == "plain")
        #expect(
            stderr.contains(
                "carve: warning: cannot use \(fs.top)/timeshift-btrfs/snapshots/2026-11-02_12-00-01/info.json: not valid JSON"
            ))
        // A snapshot of a subvolume with a nested one: the nested subvolume is not copied, the snapshot is listed.
        #expect(byPath["@home/nested-snapshot"]?["source"] as? String == fs.top + "/@home")
        #expect(byPath["@home/nested-snapshot"]?["nested"] as? Bool == false)

        // --all-subvolumes adds the plain ones, marked; ids and paths equal btrfs-progs for every subvolume.
        let all = try list([fs.top, "--all-subvolumes"])
        #expect(
            Dictionary(
                uniqueKeysWithValues: all.snapshots.map {
                    (($0["id"] as? NSNumber)?.uint64Value ?? 0, $0["subvolume_path"] as? String ?? "")
                })
                == reference.mapValues(\.path))
        let home = all.snapshots.first { $0["subvolume_path"] as? String == "@home" }
        #expect(home?["snapshot"] as? Bool == false && home?["manager"] is NSNull && home?["nested"] as? Bool == true)
    }

    @Test func snapshotsOutsideTheMountedSubvolumeAreListedUnreachable() throws {
        let fs = try Btrfs()
        try fs.subvolume("@home")
        try fs.snapshot("@home", "snaps/home.20261101")
        try fs.snapshot("@home", "@home/.inner")
        let home = try fs.disk.mount(fs.disk.device, options: "subvol=@home", name: "home")
        try fs.disk.unmount(fs.top)
        let reference = try fs.reference(at: home)

        let (snapshots, stderr, status) = try list([home + "/"])
        #expect(status == 0, "\(stderr)")
        #expect(snapshots.count == 2)
        let outside = try #require(snapshots.first { $0["subvolume_path"] as? String == "snaps/home.20261101" })
        #expect(outside["reachable"] as? Bool == false && outside["path"] as? String == "<FS_TREE>/snaps/home.20261101")
        #expect(outside["source"] as? String == home)
        #expect(outside["filesystem"] as? String == home)
        let inside = try #require(snapshots.first { $0["subvolume_path"] as? String == "@home/.inner" })
        #expect(inside["reachable"] as? Bool == true && inside["path"] as? String == home + "/.inner")
        #expect(
            Set(snapshots.compactMap { ($0["id"] as? NSNumber)?.uint64Value })
                == Set(reference.filter { $0.value.parent != nil }.keys))

        let table = try Shell.run([Self.carve, "snapshots", "list", home, "--output", "ID,PATH"])
        #expect(table.stdout.contains("<FS_TREE>/snaps/home.20261101 (not mounted)"))
    }

    @Test func oneFilesystemMountedTwiceIsListedOnce() throws {
        let fs = try Btrfs()
        try fs.subvolume("@home")
        try fs.snapshot("@home", "snaps/a")
        let again = try fs.disk.mount(fs.disk.device, name: "again")
        let uuid = try Shell.check(["blkid", "-p", "-s", "UUID", "-o", "value", fs.disk.device]).trimmingCharacters(
            in: .whitespacesAndNewlines)
        for arguments in [[fs.top, again, again + "/snaps"], []] {
            let (snapshots, stderr, _) = try list(arguments)
            let ours = snapshots.filter { $0["fsuuid"] as? String == uuid }
            #expect(ours.count == 1, "\(arguments): \(stderr)")
        }
    }

    @Test func snapperSnapshotsCarryTheirNumbersAndDescriptions() throws {
        let fs = try Btrfs()
        try fs.subvolume("data")
        let config = "carvelist\(UInt32.random(in: 1000...99999))"
        try Shell.check(["snapper", "--no-dbus", "-c", config, "create-config", fs.top + "/data"])
        // snapper's delete-config refuses while .snapshots holds a subvolume it did not make
        // (snapshot 6 below): that one goes first, or the config outlives the test.
        func removeConfig() throws -> Shell.Result {
            _ = try? Shell.run(["btrfs", "-q", "subvolume", "delete", fs.top + "/data/.snapshots/6/snapshot"])
            return try Shell.run(["snapper", "--no-dbus", "-c", config, "delete-config"])
        }
        var removed = false
        defer { if !removed { _ = try? removeConfig() } }
        try Shell.check(["snapper", "--no-dbus", "-c", config, "create", "-d", "first one"])
        try Shell.check([
            "snapper", "--no-dbus", "-c", config, "create", "-d", "keep me", "--userdata", "important=yes",
        ])
        let pre = try Shell.check([
            "snapper", "--no-dbus", "-c", config, "create", "-t", "pre", "-p", "-d", "before install",
        ])
        .trimmingCharacters(in: .whitespacesAndNewlines)
        try Shell.check([
            "snapper", "--no-dbus", "-c", config, "create", "-t", "post", "--pre-number", pre, "-d", "after install",
        ])
        try fs.snapshot("data", "data/.snapshots/6/snapshot")
        try fs.write("data/.snapshots/6/info.xml", "<snapshot><type>single</type>")

        let (snapshots, stderr, status) = try list([fs.top])
        #expect(status == 0, "\(stderr)")
        // snapper's own account: number, type, pre number, description, userdata.
        let snapperList = try Shell.check([
            "snapper", "--no-dbus", "-c", config, "list", "--columns", "number,type,pre-number,description,userdata",
        ])
        let rows = snapperList.split(separator: "\n").dropFirst(2).map {
            $0.split(separator: "|", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
        }.filter { $0.first != "0" }
        #expect(rows.count == 4)
        for row in rows {
            let number = Int(row[0])
            let snapshot = try #require(
                snapshots.first { $0["manager"] as? String == "snapper" && ($0["number"] as? Int) == number })
            #expect(snapshot["config"] as? String == config)
            #expect(snapshot["type"] as? String == row[1])
            #expect(snapshot["description"] as? String == row[3])
            #expect(snapshot["important"] as? Bool == row[4].contains("important=yes"))
            #expect(snapshot["path"] as? String == "\(fs.top)/data/.snapshots/\(row[0])/snapshot")
        }
        let broken = try #require(snapshots.first { $0["subvolume_path"] as? String == "data/.snapshots/6/snapshot" })
        #expect(broken["manager"] as? String == "plain")
        #expect(stderr.contains("carve: warning: cannot use \(fs.top)/data/.snapshots/6/info.xml: not well-formed XML"))

        let removal = try removeConfig()
        removed = true
        #expect(removal.status == 0, "snapper delete-config: \(removal.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "/etc/snapper/configs/" + config))
    }

    @Test func quotaSizesEqualQgroupShowAndOffSaysWhy() throws {
        let fs = try Btrfs()
        try fs.subvolume("@home")
        // a lives only in snaps/1 (3 MiB exclusive); b in snaps/2 and @home (shared).
        try Data(count: 3 << 20).write(to: URL(fileURLWithPath: fs.top + "/@home/a"))
        try fs.snapshot("@home", "snaps/1")
        try FileManager.default.removeItem(atPath: fs.top + "/@home/a")
        try Data(repeating: 7, count: 2 << 20).write(to: URL(fileURLWithPath: fs.top + "/@home/b"))
        try fs.snapshot("@home", "snaps/2")

        let off = try list([fs.top, "--sizes", "quota"])
        #expect(off.status == 0 && off.snapshots.count == 2)
        #expect(off.snapshots.allSatisfy { $0["exclusive"] is NSNull && $0["referenced"] is NSNull })
        #expect(off.stderr.contains("carve: quotas are off on \(fs.top): sizes unknown (carve never turns quotas on)"))
        #expect(off.stderr.contains("carve: 2 snapshots; exclusive sizes unknown"))
        // The default, auto: quotas are off, so the extents are read.
        let auto = try list([fs.top])
        #expect(auto.snapshots.map { $0["exclusive"] as? Int } == [3 << 20, 0], "\(auto.stderr)")
        #expect(!auto.stderr.contains("quotas are off"), "\(auto.stderr)")

        try Shell.check(["btrfs", "quota", "enable", fs.top])
        try Shell.check(["btrfs", "quota", "rescan", "-w", fs.top])
        try Shell.check(["btrfs", "filesystem", "sync", fs.top])
        var qgroups: [UInt64: (UInt64, UInt64)] = [:]
        for line in try Shell.check(["btrfs", "qgroup", "show", "--raw", fs.top]).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 3, fields[0].hasPrefix("0/"), let id = UInt64(fields[0].dropFirst(2)),
                let rfer = UInt64(fields[1]), let excl = UInt64(fields[2])
            else { continue }
            qgroups[id] = (rfer, excl)
        }
        let on = try list([fs.top, "--sizes", "quota"])
        #expect(on.status == 0, "\(on.stderr)")
        #expect(on.snapshots.count == 2)
        for snapshot in on.snapshots {
            let id = try #require((snapshot["id"] as? NSNumber)?.uint64Value)
            let expected = try #require(qgroups[id])
            #expect((snapshot["referenced"] as? NSNumber)?.uint64Value == expected.0)
            #expect((snapshot["exclusive"] as? NSNumber)?.uint64Value == expected.1)
        }
        #expect(on.snapshots.contains { (($0["exclusive"] as? NSNumber)?.uint64Value ?? 0) >= 3 << 20 })
        // The total of btrfs's own figures for the snapshots (subvolumes with a parent UUID).
        let snapshotIDs = try fs.reference(at: fs.top).filter { $0.value.parent != nil }.keys
        #expect(snapshotIDs.count == 2)
        let total = try snapshotIDs.reduce(UInt64(0)) { $0 + (try #require(qgroups[$1])).1 }
        let table = try Shell.run([Self.carve, "snapshots", "list", fs.top, "--bytes"])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stderr.contains("carve: 2 snapshots, \(total) bytes exclusive in total"), "\(table.stderr)")

        // A qgroup assigned without a rescan leaves the numbers stale: carve says so, as btrfs-progs warns.
        try Shell.check(["btrfs", "qgroup", "create", "1/100", fs.top])
        try Shell.check(["btrfs", "qgroup", "assign", "--no-rescan", "0/256", "1/100", fs.top])
        try Shell.check(["btrfs", "filesystem", "sync", fs.top])
        let stale = try list([fs.top, "--sizes", "quota"])
        #expect(stale.snapshots.allSatisfy { $0["exclusive"] is NSNull })
        #expect(
            stale.stderr.contains(
                "carve: quotas on \(fs.top) are inconsistent: sizes unknown (btrfs quota rescan fixes it)"))
        // auto never shows stale quota numbers: it reads the extents instead.
        let exact = try list([fs.top])
        #expect(exact.snapshots.map { $0["exclusive"] as? Int } == [3 << 20, 0], "\(exact.stderr)")

        try Shell.check(["btrfs", "quota", "disable", fs.top])
        try Shell.check(["btrfs", "filesystem", "sync", fs.top])
        let disabled = try list([fs.top, "--sizes", "quota"])
        #expect(disabled.snapshots.allSatisfy { $0["exclusive"] is NSNull })
        #expect(disabled.stderr.contains("quotas are off on \(fs.top)"))
    }

    @Test func pathsThatAreNotOnBtrfs() throws {
        let disk = try LoopDisk(size: "64M")
        defer { disk.cleanup() }
        try Shell.check(["mkfs.ext4", "-q", disk.device])
        let mountpoint = try disk.mount(disk.device, name: "ext")
        let ext = try Shell.run([Self.carve, "snapshots", "list", mountpoint])
        #expect(ext.status == 64)
        #expect(ext.stderr == "carve: \(mountpoint) is on ext4: it has no btrfs snapshots\n")
        let missing = try Shell.run([Self.carve, "snapshots", "list", mountpoint + "/missing"])
        #expect(missing.status == 64)
        #expect(missing.stderr == "carve: \(mountpoint)/missing: no such file or directory\n")
        #expect(ext.stdout.isEmpty && missing.stdout.isEmpty)
    }

    @Test func withoutRootTheListingSaysItMayBeIncomplete() throws {
        let fs = try Btrfs()
        try fs.subvolume("@home")
        try fs.snapshot("@home", "snaps/1")
        try fs.snapshot("@home", "private/2")
        for path in [fs.disk.directory, fs.top] {
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: fs.top + "/private")
        let asNobody = [
            "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", Self.carve, "snapshots", "list", fs.top,
        ]
        let result = try Shell.run(asNobody + ["--json"])
        try #require(
            result.status != 126 && !result.stderr.contains("Permission denied"), "nobody cannot run \(Self.carve)")
        #expect(result.status == 0, "\(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let paths = (object?["snapshots"] as? [[String: Any]])?.compactMap { $0["subvolume_path"] as? String }
        // The kernel skips private/2 for this user without an error: carve says the listing may be incomplete.
        #expect(paths == ["snaps/1"])
        #expect(result.stderr.contains("the listing may be incomplete"))
        #expect(result.stderr.contains("carve: reading quota sizes needs root: sizes unknown"))
        let quota = try Shell.run(asNobody + ["--sizes", "quota"])
        #expect(quota.status == 77 && quota.stderr == "carve: reading quota sizes (--sizes quota) needs root\n")
    }
}
