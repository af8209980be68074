import CarveCore
import CarveTestSupport
import Testing

@testable import CarveLinux

/// The mounts inside a snapshot are found by looking up each mountpoint's parents
/// (`MountsBelow`), for a whole listing and right before each deletion alike. They must
/// be the mounts a prefix test of every mount names, in the same order.
@Suite struct MountsInsideTests {
    typealias F = SnapshotFixtures

    static func mount(_ path: String) -> MountEntry {
        MountEntry(
            mountID: 1, parentID: 0, number: DeviceNumber(major: 0, minor: 40), root: "/", mountpoint: path,
            options: ["rw"], fsType: "tmpfs", source: "tmpfs", superOptions: [])
    }

    /// The plain reading: each path the volume is reached by (not `/`), then each mount
    /// of the table strictly below it, each mount once.
    static func prefixScan(_ mountedPath: String?, _ mountpoints: [String], in table: [MountEntry]) -> [String] {
        var found: [String] = []
        for reach in [mountedPath].compactMap({ $0 }) + mountpoints where reach != "/" {
            for entry in table where entry.mountpoint.hasPrefix(reach + "/") && !found.contains(entry.mountpoint) {
                found.append(entry.mountpoint)
            }
        }
        return found
    }

    @Test func theParentsLookupFindsWhatAPrefixScanFinds() {
        let table = [
            "/", "/mnt", "/mnt/snaps/a/proc", "/mnt/snaps/a/proc/sys", "/mnt/snaps/ab/dev", "/mnt/snaps/b",
            "/elsewhere/c/run", "/elsewhere/c", "/mnt/snaps/d",
        ].map(Self.mount)
        var volumes = [
            F.snapshot(300, path: "snaps/a", of: nil, daysAgo: 1),
            F.snapshot(301, path: "snaps/ab", of: nil, daysAgo: 1),
            F.snapshot(302, path: "snaps/b", of: nil, daysAgo: 1),
            F.snapshot(303, path: "snaps/c", of: nil, daysAgo: 1),
            F.snapshot(304, path: "snaps/d", of: nil, daysAgo: 1),
        ]
        volumes[0].mountedPath = "/mnt/snaps/a"
        volumes[1].mountedPath = "/mnt/snaps/ab"
        volumes[2].mountedPath = "/mnt/snaps/b"
        volumes[3].mountedPath = nil
        volumes[3].mountpoints = ["/elsewhere/c"]
        volumes[4].mountedPath = "/" // mounted at /: the rule for / covers it, nothing is read
        var listed = volumes
        BtrfsMounts.markMountsInside(&listed, table: table)
        #expect(
            listed.map(\.mountsInside) == [
                ["/mnt/snaps/a/proc", "/mnt/snaps/a/proc/sys"], ["/mnt/snaps/ab/dev"], [], ["/elsewhere/c/run"], [],
            ])
        for (volume, marked) in zip(volumes, listed) {
            #expect(
                Self.prefixScan(volume.mountedPath, volume.mountpoints, in: table) == marked.mountsInside,
                "\(volume.path)")
        }
    }
}

/// Right before a deletion, a snapshot's own mounts are read again from the mount table:
/// the btrfs mounts that share a device number with the filesystem's mounts and carry
/// the snapshot's `subvolid`, in table order, whatever other filesystems show.
@Suite struct SubvolumeMountpointsTests {
    static func btrfs(_ path: String, minor: UInt32, subvolid: UInt64?, fsType: String = "btrfs") -> MountEntry {
        MountEntry(
            mountID: 1, parentID: 0, number: DeviceNumber(major: 0, minor: minor), root: "/", mountpoint: path,
            options: ["rw"], fsType: fsType, source: "/dev/loop0",
            superOptions: ["rw", "space_cache=v2"] + (subvolid.map { ["subvolid=\($0)"] } ?? []))
    }

    @Test func onlyThisFilesystemsMountsOfThisSubvolume() {
        let filesystem = Filesystem(
            uuid: "u", devices: ["/dev/loop0"],
            mounts: [FilesystemMount(mountpoint: "/mnt", subvolumePath: "/", subvolumeID: 5)])
        let table = [
            Self.btrfs("/", minor: 30, subvolid: 300), // another btrfs, the same subvolume id
            Self.btrfs("/mnt", minor: 40, subvolid: 5),
            Self.btrfs("/srv/a", minor: 40, subvolid: 300),
            Self.btrfs("/srv/other", minor: 40, subvolid: 301),
            Self.btrfs("/srv/tmp", minor: 40, subvolid: 300, fsType: "tmpfs"),
            Self.btrfs("/srv/bare", minor: 40, subvolid: nil),
            Self.btrfs("/srv/b", minor: 40, subvolid: 300),
            Self.btrfs("/elsewhere", minor: 30, subvolid: 300),
        ]
        #expect(
            BtrfsMounts.mountpointsBySubvolume(on: filesystem, in: table) == [
                300: ["/srv/a", "/srv/b"], 5: ["/mnt"], 301: ["/srv/other"],
            ])
        // A filesystem none of whose mounts is in the table has none.
        let unmounted = Filesystem(
            uuid: "v", devices: [], mounts: [FilesystemMount(mountpoint: "/gone", subvolumePath: "/", subvolumeID: 5)])
        #expect(BtrfsMounts.mountpointsBySubvolume(on: unmounted, in: table).isEmpty)
    }
}

/// What a deletion reads of the mount table is worked out once per table read: kept
/// while the table's version stays, worked out again when it moves, and never kept from
/// a table that has no version.
@Suite struct MountIndexesTests {
    final class Table: MountTable, @unchecked Sendable {
        var entries: [MountEntry]
        var version: Int?
        init(_ entries: [MountEntry], version: Int?) { self.entries = entries; self.version = version }
        func mounts() throws -> [MountEntry] { entries }
        func versionedMounts() throws -> (entries: [MountEntry], version: Int?) { (entries, version) }
    }

    static let filesystem = Filesystem(
        uuid: "u", devices: ["/dev/loop0"],
        mounts: [FilesystemMount(mountpoint: "/mnt", subvolumePath: "/", subvolumeID: 5)])

    static func table(_ subvolumeMounts: [(String, UInt64)]) -> [MountEntry] {
        [SubvolumeMountpointsTests.btrfs("/mnt", minor: 40, subvolid: 5)]
            + subvolumeMounts.map { SubvolumeMountpointsTests.btrfs($0.0, minor: 40, subvolid: $0.1) }
    }

    @Test func keptWhileTheVersionStaysAndReadAgainWhenItMoves() throws {
        let indexes = MountIndexes()
        let table = Table(Self.table([("/srv/a", 300)]), version: 1)
        #expect(try indexes.index(of: Self.filesystem, in: table).mountpoints[300] == ["/srv/a"])
        // Changed behind an unchanged version: the kept index still answers.
        table.entries = Self.table([("/srv/b", 300), ("/mnt/snaps/x/proc", 7)])
        #expect(try indexes.index(of: Self.filesystem, in: table).mountpoints[300] == ["/srv/a"])
        table.version = 2
        let moved = try indexes.index(of: Self.filesystem, in: table)
        #expect(moved.mountpoints[300] == ["/srv/b"])
        #expect(moved.below.inside("/mnt/snaps/x", []) == ["/mnt/snaps/x/proc"])
    }

    @Test func aTableWithoutAVersionIsReadEachTime() throws {
        let indexes = MountIndexes()
        let table = Table(Self.table([("/srv/a", 300)]), version: nil)
        #expect(try indexes.index(of: Self.filesystem, in: table).mountpoints[300] == ["/srv/a"])
        table.entries = Self.table([("/srv/b", 300)])
        #expect(try indexes.index(of: Self.filesystem, in: table).mountpoints[300] == ["/srv/b"])
    }
}

/// Values by filesystem UUID answer the same whether the last one asked for or another
/// is asked, and forget everything when emptied.
@Suite struct ByFilesystemTests {
    @Test func answersAsADictionaryWhicheverWasAskedLast() {
        var values = ByFilesystem<Int?>()
        #expect(values.value(for: "a") == nil)
        values.set(1, for: "a")
        values.set(nil, for: "b") // known to have none
        #expect(values.value(for: "a") == .some(1))
        #expect(values.value(for: "a") == .some(1))
        #expect(values.value(for: "b") == .some(nil))
        values.set(2, for: "a")
        #expect(values.value(for: "b") == .some(nil))
        #expect(values.value(for: "a") == .some(2))
        values.removeAll()
        #expect(values.value(for: "a") == nil && values.value(for: "b") == nil)
    }
}
