import CarveCore
import CarveTestSupport
import Testing

@testable import CarveLinux

/// The mounts inside a snapshot are found two ways: for a whole listing by looking up
/// each mountpoint's parents, right before one deletion by a prefix test per mount.
/// Both must name the same mounts.
@Suite struct MountsInsideTests {
    typealias F = SnapshotFixtures

    static func mount(_ path: String) -> MountEntry {
        MountEntry(
            mountID: 1, parentID: 0, number: DeviceNumber(major: 0, minor: 40), root: "/", mountpoint: path,
            options: ["rw"], fsType: "tmpfs", source: "tmpfs", superOptions: [])
    }

    @Test func theListingAndTheDeletionFindTheSameMounts() {
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
                BtrfsMounts.mounts(below: volume.mountedPath, volume.mountpoints, in: table) == marked.mountsInside,
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
        #expect(BtrfsMounts.mountpoints(ofSubvolume: 300, on: filesystem, in: table) == ["/srv/a", "/srv/b"])
        #expect(BtrfsMounts.mountpoints(ofSubvolume: 5, on: filesystem, in: table) == ["/mnt"])
        #expect(BtrfsMounts.mountpoints(ofSubvolume: 999, on: filesystem, in: table).isEmpty)
        // A filesystem none of whose mounts is in the table has none.
        let unmounted = Filesystem(
            uuid: "v", devices: [], mounts: [FilesystemMount(mountpoint: "/gone", subvolumePath: "/", subvolumeID: 5)])
        #expect(BtrfsMounts.mountpoints(ofSubvolume: 300, on: unmounted, in: table).isEmpty)
    }
}
