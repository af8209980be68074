import CarveCore
import CarveTestSupport
import Testing

/// The smaller ZFS pieces: the sends seen in /proc, where snapshots are mounted, and
/// `check` on a pool's device.
@Suite struct ZFSPiecesTests {
    @Test func aSendsCommandLineNamesWhatItReads() {
        func sent(_ arguments: [String]) -> Set<String> { Set(ZFSSendCommand.snapshots(arguments)) }
        // As written, and as `zfs send` leaves its arguments (each `@` overwritten with a NUL).
        #expect(sent(["zfs", "send", "tank/a@x"]).contains("tank/a@x"))
        #expect(sent(["/usr/sbin/zfs", "send", "tank/a", "x"]).contains("tank/a@x"))
        #expect(sent(["zfs", "send", "-i", "@x", "tank/a@y"]).isSuperset(of: ["tank/a@x", "tank/a@y"]))
        #expect(sent(["zfs", "send", "-i", "", "x", "tank/a", "y"]).isSuperset(of: ["tank/a@x", "tank/a@y"]))
        #expect(sent(["zfs", "send", "-RvI", "tank/a", "x", "tank/a", "y"]).isSuperset(of: ["tank/a@x", "tank/a@y"]))
        #expect(!sent(["zfs", "send", "-i", "tank/a#mark", "tank/a@y"]).contains { $0.contains("#") }, "a bookmark")
        #expect(sent(["zfs", "list", "tank/a@y"]).isEmpty)
        #expect(sent(["zfs", "send"]).isEmpty)
        #expect(sent(["zfs", "send", "-i"]).isEmpty)
    }

    @Test func aSnapshotZFSMountedOnAccessIsInUseOnlyThroughItsHoldersAnyOtherMountIsAMount() {
        let zero = Date(timeIntervalSince1970: 0)
        var input = ZFSVolumes(datasets: [
            ZFSDataset(name: "tank", kind: .filesystem, creation: zero),
            ZFSDataset(name: "tank/a", kind: .filesystem, creation: zero),
            ZFSDataset(name: "tank/a@auto", kind: .snapshot, creation: zero),
            ZFSDataset(name: "tank/a@by-hand", kind: .snapshot, creation: zero),
        ])
        input.datasetMounts = ["tank": "/tank", "tank/a": "/tank/a"]
        input.snapshotMounts = ["tank/a@auto": ["/tank/a/.zfs/snapshot/auto"], "tank/a@by-hand": ["/mnt/old"]]
        let volumes = input.volumes(within: "tank/a")
        #expect(volumes.map(\.path) == ["tank/a", "tank/a@auto", "tank/a@by-hand"], "within the named dataset")
        let auto = volumes[1], byHand = volumes[2]
        #expect(auto.mountedPath == "/tank/a/.zfs/snapshot/auto" && auto.mountpoints.isEmpty)
        #expect(byHand.mountpoints == ["/mnt/old"])
        // ProcVolumeHolders looks at the mounted path (stat'ing no unmounted `.zfs/snapshot/NAME`,
        // which would mount it): a process there holds it.
        let holders = FakeVolumeHolders([auto.id: [VolumeHolder(pid: 42, command: "restic")]])
        let filesystem = Filesystem(kind: .zfs, uuid: "1", devices: [], mounts: [])
        let rules = DeletionRules(holders: holders)
        #expect(rules.protections(of: auto, on: filesystem) == [.inUse([VolumeHolder(pid: 42, command: "restic")])])
        #expect(rules.protections(of: byHand, on: filesystem) == [.mounted(["/mnt/old"])])
        #expect(ZFSVolumes.id(of: ZFSDataset(name: "tank/a@x", kind: .snapshot, creation: zero)) != 0)
    }

    func check(_ layout: ZFSPoolLayout?, device: String = "/dev/sda1") throws -> CheckReport {
        var fixture = CheckFixture(first: FakeFilesystem("zfs_member", uuid: "8888", label: "tank"))
        fixture.sizer = FakeFilesystemSizer()
        struct Pools: ZFSPoolReading {
            let layout: ZFSPoolLayout?
            func layout(ofPool name: String) throws -> ZFSPoolLayout {
                guard let layout, layout.pool == name else { throw RuntimeError("cannot open '\(name)': no such pool") }
                return layout
            }
        }
        return try Check.run(
            device: device, operation: .shrinkTo(1 << 30),
            in: CheckEnvironment(
                devices: fixture.devices, tables: fixture.tables, sizer: fixture.sizer, mounts: fixture.mounts,
                snapshots: fixture.snapshots, zfsPools: Pools(layout: layout)))
    }

    func layout(_ config: String) throws -> ZFSPoolLayout {
        try ZFSPoolLayout.parse(
            status: "  pool: tank\n state: ONLINE\nconfig:\n\n\tNAME STATE\n\ttank ONLINE\n" + config + "\n")
    }

    @Test func aPoolsDeviceNeverFitsAndTheWaysThatExistAreNamed() throws {
        let alone = try check(try layout("\t  /dev/sda1 ONLINE"))
        #expect(alone.verdict == .doesNotFit && alone.blockers.map(\.kind) == [.cannotShrink])
        #expect(alone.steps.isEmpty)
        #expect(alone.notes.contains { $0.contains("ZFS pool tank (ONLINE): 1 top-level vdev: /dev/sda1") })
        #expect(
            alone.remedies.map(\.command) == [
                "zpool replace tank /dev/sda1 NEWDEVICE",
                "zfs snapshot -r tank@move && zfs send -R tank@move | zfs receive -F NEWPOOL",
            ])
        let mirror = try check(try layout("\t  mirror-0 ONLINE\n\t    sda1 ONLINE\n\t    sdb1 ONLINE"))
        #expect(mirror.remedies.map(\.command).contains("zpool detach tank /dev/sda1"))
        let stripe = try check(try layout("\t  sda1 ONLINE\n\t  sdb1 ONLINE"))
        #expect(stripe.remedies.map(\.command).contains("zpool remove tank /dev/sda1"))
        let raidz = try check(try layout("\t  sda1 ONLINE\n\t  raidz1-1 ONLINE\n\t    sdb1 ONLINE\n\t    sdc1 ONLINE"))
        #expect(!raidz.remedies.map(\.command).contains { $0.hasPrefix("zpool remove") }, "no removal beside raidz")
        let log = try check(try layout("\t  sdb1 ONLINE\n\tlogs\n\t  sda1 ONLINE"))
        #expect(log.remedies.map(\.command) == ["zpool remove tank /dev/sda1"])
        let unknown = try check(nil)
        #expect(unknown.verdict == .doesNotFit && unknown.notes.contains { $0.contains("no such pool") })
    }
}
