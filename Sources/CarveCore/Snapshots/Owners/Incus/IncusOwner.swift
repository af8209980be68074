/// Incus and LXD btrfs pools: each volume a subvolume `POOL/KIND/NAME` (an image
/// `images/FINGERPRINT`, read-only; an instance `containers/NAME` or
/// `virtual-machines/NAME`, a snapshot of its image; a custom volume `custom/NAME`),
/// each snapshot of one `POOL/KIND-snapshots/NAME/SNAP` (read-only), all tracked in
/// Incus's own database. Incus mounts a pool at `/var/lib/incus/storage-pools/POOL` (LXD
/// at `/var/lib/lxd/…` or the snap's `/var/snap/lxd/common/lxd/…`), whether it is a
/// directory there, a subvolume of another btrfs or a whole btrfs; the same btrfs may
/// also be mounted anywhere else, and is then recognised by its own layout (`PoolLayout`).
struct IncusOwner: SnapshotOwner {
    var manager: SnapshotManager { .incus }
    /// Every volume lies below one of the pool's directories (`PoolLayout.lookOrder`), so
    /// each hint ends in "/" and one look serves a directory of snapshots.
    var pathHints: [StaticString] {
        [
            "storage-pools/", "containers/", "containers-snapshots/", "virtual-machines/",
            "virtual-machines-snapshots/", "custom/", "custom-snapshots/", "images/", "buckets/",
        ]
    }
    var deletingTool: String? { "incus (or lxc)" }

    func recognise(_ place: OwnerPlace, context: OwnerContext) -> OwnerRecognition? {
        for components in [place.mountedComponents ?? [], place.components] {
            guard let at = OwnerPlace.index(of: ["storage-pools"], in: components, after: 3),
                PoolLayout.directories.contains(String(components[at + 2]))
            else { continue }
            return OwnerRecognition(
                ManagerMetadata(
                    manager: manager, config: String(components[at + 1]),
                    name: components[(at + 3)...].joined(separator: "/")))
        }
        // Elsewhere only a mount lets the pool's directories be looked at.
        guard let mounted = place.mountedComponents,
            let at = PoolLayout.volume(in: mounted, probe: context.probe)
        else { return nil }
        return OwnerRecognition(
            ManagerMetadata(manager: manager, name: mounted[(at + 1)...].joined(separator: "/")))
    }
}

extension SnapshotManager {
    public static let incus = SnapshotManager(rawValue: "incus")
}
