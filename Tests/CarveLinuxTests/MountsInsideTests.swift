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
            #expect(BtrfsMounts.mounts(inside: volume, in: table) == marked.mountsInside, "\(volume.path)")
        }
    }
}
