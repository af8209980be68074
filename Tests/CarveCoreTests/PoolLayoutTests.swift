import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// Incus/LXD pools and machinectl's image directories recognised wherever they are
/// mounted: by the pool's own directories beside the volume (looked at through the
/// mount), and by where the platform found the image directories on the filesystem.
@Suite struct PoolLayoutTests {
    typealias F = SnapshotFixtures
    /// What Incus makes at the root of every pool (createStorageStructure).
    static let poolDirectories = [
        "containers", "containers-snapshots", "virtual-machines", "virtual-machines-snapshots", "custom",
        "custom-snapshots", "images", "buckets",
    ]

    func volume(_ id: UInt64, _ path: String, mountedAt mount: String?) -> Volume {
        Volume(
            id: id, path: path, mountedPath: mount.map { $0 + "/" + path }, uuid: F.uuid(id), parentUUID: F.uuid(1),
            created: F.epoch, isSnapshot: false)
    }

    func classified(
        _ volumes: [Volume], existing: Set<String> = [], settings: OwnerSettings = OwnerSettings()
    ) -> [Volume] {
        let context = OwnerContext(
            timeZone: TimeZone(identifier: "UTC")!, readFile: { _, _ in nil }, probe: { existing.contains($0) },
            settings: settings)
        return SnapshotClassifier(context: context).classify(volumes).subvolumes
    }

    static func pool(at root: String) -> Set<String> { Set(poolDirectories.map { root + "/" + $0 }) }

    @Test func aPoolMountedAtItsOwnMountpointIsIncusWhateverTheMountpoint() {
        let volumes = [
            volume(256, "images/0a1b", mountedAt: "/mnt/pool"),
            volume(257, "containers/c1", mountedAt: "/mnt/pool"),
            volume(258, "containers-snapshots/c1/snap0", mountedAt: "/mnt/pool"),
            volume(259, "virtual-machines-snapshots/vm1/before-upgrade", mountedAt: "/mnt/pool"),
            volume(260, "custom-snapshots/default_data/s1", mountedAt: "/mnt/pool"),
            volume(261, "containers/c1/rootfs/var/lib/inner", mountedAt: "/mnt/pool"),
        ]
        let result = classified(volumes, existing: Self.pool(at: "/mnt/pool"))
        #expect(result.map(\.metadata.manager) == Array(repeating: .incus, count: 6))
        #expect(result[2].metadata.name == "c1/snap0" && result[2].metadata.config == nil)
        // A pool that is a subvolume of another btrfs (Incus's `source=/srv/pool`).
        let nested = volume(262, "srv/pool/containers-snapshots/c1/snap0", mountedAt: "")
        #expect(classified([nested], existing: Self.pool(at: "/srv/pool")).map(\.metadata.manager) == [.incus])
    }

    /// A pool shows only through a mount: one no mount reaches is named by its path alone.
    @Test func storagePoolsPathsStillNeedNoMount() {
        let unmounted = volume(263, "var/lib/incus/storage-pools/default/containers/c1", mountedAt: nil)
        #expect(classified([unmounted]).map(\.metadata.manager) == [.incus])
        #expect(classified([volume(264, "containers/c1", mountedAt: nil)]).map(\.metadata.manager) == [.plain])
    }

    @Test func aPlainBtrfsWithADirectoryNamedContainersIsNoPool() {
        let web = volume(270, "containers/web", mountedAt: "/mnt/x")
        // `containers` alone, then beside `images`: no directory only a pool has, no backup.yaml.
        #expect(classified([web], existing: ["/mnt/x/containers"]).map(\.metadata.manager) == [.plain])
        #expect(
            classified([web], existing: ["/mnt/x/containers", "/mnt/x/images"]).map(\.metadata.manager) == [.plain])
        // The same two with an instance's backup.yaml: an instance of a pool.
        let instance: Set<String> = ["/mnt/x/containers", "/mnt/x/images", "/mnt/x/containers/web/backup.yaml"]
        #expect(classified([web], existing: instance).map(\.metadata.manager) == [.incus])
        // A snapshot of it: backup.yaml inside the snapshot.
        let snapshot = volume(271, "containers-snapshots/web/s0", mountedAt: "/mnt/y")
        #expect(
            classified([snapshot], existing: ["/mnt/y/containers-snapshots/web/s0/backup.yaml", "/mnt/y/images"])
                .map(\.metadata.manager) == [.incus])
        // A pool's directory name deeper than a volume's place: `containers/web` needs a NAME.
        #expect(classified([volume(272, "containers", mountedAt: "/mnt/x")]).map(\.metadata.manager) == [.plain])
        #expect(
            classified(
                [volume(273, "containers-snapshots/web", mountedAt: "/mnt/x")], existing: Self.pool(at: "/mnt/x")
            )
            .map(\.metadata.manager) == [.plain])
    }

    @Test func machineImagesAreRecognisedInTheImageDirectoriesOfTheFilesystem() {
        var settings = OwnerSettings()
        // A machines btrfs whose top is /var/lib/machines, listed through another mount.
        settings[MachinesOwner.ImageDirectories.self] = MachinesOwner.ImageDirectories(topLevelPaths: [""])
        let web = volume(280, "web", mountedAt: "/mnt/top")
        let clone = volume(281, ".#web.clone", mountedAt: "/mnt/top")
        #expect(classified([web, clone], settings: settings).map(\.metadata.manager) == [.machines, .machines])
        #expect(classified([web, clone]).map(\.metadata.manager) == [.plain, .plain])
        // An image directory of its own subvolume (`@machines` on /var/lib/container).
        settings[MachinesOwner.ImageDirectories.self] = MachinesOwner.ImageDirectories(topLevelPaths: ["@machines"])
        let volumes = [
            volume(282, "@machines/web", mountedAt: "/mnt/top"), volume(283, "@machinesx/web", mountedAt: "/mnt/top"),
            volume(284, "@machines", mountedAt: "/mnt/top"),
        ]
        #expect(classified(volumes, settings: settings).map(\.metadata.manager) == [.machines, .plain, .plain])
        #expect(classified(volumes, settings: settings)[0].metadata.name == "web")
    }
}
