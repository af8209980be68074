import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// Container engines recognised by their own on-disk layout, wherever it lives.
@Suite struct OwnerRecognitionTests {
    typealias F = SnapshotFixtures

    func raw(_ id: UInt64, _ path: String, mountedAt mount: String? = "/mnt", readOnly: Bool = false) -> Volume {
        Volume(
            id: id, path: path, mountedPath: mount.map { $0 + "/" + path }, uuid: F.uuid(id), parentUUID: F.uuid(1),
            created: F.epoch, readOnly: readOnly, isSnapshot: false)
    }

    func owners(_ volumes: [Volume], existing: Set<String> = []) -> [SnapshotManager] {
        let classifier = SnapshotClassifier(
            timeZone: TimeZone(identifier: "UTC")!, readFile: { _, _ in nil }, probe: { existing.contains($0) })
        return classifier.classify(volumes).subvolumes.map(\.metadata.manager)
    }

    @Test func theGraphDriverLayoutIsPodmansOrDockersByWhatLiesBesideIt() {
        let layer = "srv/podman/storage/btrfs/subvolumes/" + String(repeating: "ab", count: 32)
        let docker = "var/lib/docker/btrfs/subvolumes/0123-init"
        #expect(owners([raw(256, layer)], existing: ["/mnt/srv/podman/storage/btrfs-layers/layers.json"]) == [.podman])
        #expect(owners([raw(257, docker)], existing: ["/mnt/var/lib/docker/image/btrfs"]) == [.docker])
        // Docker's data root moved: still Docker's, by its image directory.
        #expect(owners([raw(258, "data/btrfs/subvolumes/x")], existing: ["/mnt/data/image/btrfs"]) == [.docker])
        // A graph root without either file yet is containers/storage's, the library every other engine uses.
        #expect(owners([raw(259, "data/btrfs/subvolumes/x")]) == [.podman])
    }

    @Test func withoutAMountTheGraphRootsPathTellsDockerFromPodman() {
        #expect(owners([raw(260, "@/var/lib/docker/btrfs/subvolumes/x", mountedAt: nil)]) == [.docker])
        #expect(
            owners([raw(261, "@home/u/.local/share/containers/storage/btrfs/subvolumes/x", mountedAt: nil)]) == [
                .podman
            ])
    }

    @Test func machinesAndTheirTemporariesAndIncusPoolsAreRecognised() {
        let volumes = [
            raw(262, "@/var/lib/machines/web"),
            raw(263, "@/var/lib/machines/.#web.clone", mountedAt: nil),
            raw(264, "var/lib/incus/storage-pools/default/containers/c1"),
            raw(265, "var/lib/lxd/storage-pools/pool/containers-snapshots/c1/snap0", readOnly: true),
        ]
        #expect(owners(volumes) == [.machines, .machines, .incus, .incus])
        let pool = Volume(
            id: 266, path: "containers-snapshots/c1/snap0",
            mountedPath: "/var/lib/incus/storage-pools/default/containers-snapshots/c1/snap0", uuid: F.uuid(266),
            parentUUID: F.uuid(1), created: F.epoch, isSnapshot: false)
        #expect(owners([pool]) == [.incus])
    }

    @Test func lookalikesStayPlain() {
        let volumes = [
            raw(270, "backups/btrfs/subvolumes"),
            raw(271, "var/lib/machines"),
            raw(272, "srv/storage-pools/default/notakind/x"),
            raw(273, "machines/x"),
        ]
        #expect(owners(volumes) == [.plain, .plain, .plain, .plain])
    }

    @Test func anEnginesSubvolumeWithoutParentIsStillListedAsItsOwn() {
        var base = raw(280, "var/lib/docker/btrfs/subvolumes/base")
        base.parentUUID = nil
        let classified = SnapshotClassifier(
            timeZone: TimeZone(identifier: "UTC")!, readFile: { _, _ in nil }, probe: { _ in false }
        ).classify([base]).subvolumes[0]
        #expect(classified.isSnapshot && classified.metadata.manager == .docker)
        #expect(classified.created == F.epoch)
    }

    /// The owners' path hints are looked for once per directory: a run of subvolumes in
    /// one directory, then another directory, then the first again, each recognised as
    /// when it is alone (the directory that holds a hint, and the mount's, both count).
    @Test func theHintsOfOneDirectoryServeItsSubvolumesAndNoOthers() {
        let docker = "var/lib/docker/btrfs/subvolumes/"
        let image = ["/mnt/var/lib/docker/image/btrfs"]
        let volumes = [
            raw(300, docker + "a"), raw(301, docker + "b"), raw(302, "snaps/a"), raw(303, "snaps/b"),
            raw(304, docker + "c"), raw(305, docker + "d", mountedAt: nil), raw(306, "other/btrfs/subvolumes"),
            raw(307, "machines/y"), raw(308, "machines/y", mountedAt: "/var/lib"),
        ]
        let alone = volumes.map { owners([$0], existing: Set(image)).first! }
        #expect(owners(volumes, existing: Set(image)) == alone)
        #expect(alone == [.docker, .docker, .plain, .plain, .docker, .docker, .plain, .plain, .machines])
    }
}
