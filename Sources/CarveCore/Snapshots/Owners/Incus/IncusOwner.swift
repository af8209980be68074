/// Incus and LXD btrfs pools: `storage-pools/POOL/KIND/NAME`, with each instance's
/// snapshots in `KIND-snapshots/NAME/SNAP` (tracked in Incus's own database), whether the
/// pool is a directory (`/var/lib/incus/storage-pools/POOL`, LXD's `/var/lib/lxd/…` or the
/// snap's `/var/snap/lxd/common/lxd/…`) or a whole btrfs mounted there.
struct IncusOwner: SnapshotOwner {
    var manager: SnapshotManager { .incus }
    var pathHints: [StaticString] { ["storage-pools/"] }
    var deletingTool: String? { "incus (or lxc)" }

    static let kinds: Set<Substring> = [
        "containers", "containers-snapshots", "virtual-machines", "virtual-machines-snapshots", "custom",
        "custom-snapshots", "images", "buckets",
    ]

    func recognise(_ place: OwnerPlace, context: OwnerContext) -> OwnerRecognition? {
        for components in [place.mountedComponents ?? [], place.components] {
            guard let at = OwnerPlace.index(of: ["storage-pools"], in: components, after: 3),
                Self.kinds.contains(components[at + 2])
            else { continue }
            return OwnerRecognition(
                ManagerMetadata(
                    manager: manager, config: String(components[at + 1]),
                    name: components[(at + 3)...].joined(separator: "/")))
        }
        return nil
    }
}

extension SnapshotManager {
    public static let incus = SnapshotManager(rawValue: "incus")
}
