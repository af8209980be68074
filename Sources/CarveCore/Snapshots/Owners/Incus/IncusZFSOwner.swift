/// Incus and LXD zfs pools: below the pool's dataset, `containers/NAME`,
/// `virtual-machines/NAME`, `custom/…`, `images/FINGERPRINT` (with its `@readonly`
/// snapshot every instance is cloned from) and `deleted/…` (what is kept until its last
/// clone goes), with instance snapshots `NAME@snapshot-SNAP`; all tracked in Incus's own
/// database. The pool's dataset is recognised by the `deleted` dataset both create in it.
struct IncusZFSOwner: SnapshotOwner {
    var manager: SnapshotManager { .incus }
    var filesystems: [FilesystemKind] { [.zfs] }
    var deletingTool: String? { "incus (or lxc)" }

    static let kinds: Set<Substring> = [
        "containers", "virtual-machines", "custom", "images", "deleted", "buckets",
    ]

    /// A kind's dataset on the way: most snapshots have none, and are passed over unsplit.
    var pathHints: [StaticString] {
        ["/containers/", "/virtual-machines/", "/custom/", "/images/", "/deleted/", "/buckets/"]
    }

    func recognise(_ place: OwnerPlace, context: OwnerContext) -> OwnerRecognition? {
        guard ZFSSnapshotNames.split(place) != nil else { return nil }
        let components = place.components
        for at in components.indices.dropFirst().dropLast() where Self.kinds.contains(components[at]) {
            let pool = components[..<at].joined(separator: "/")
            guard context.probe(pool + "/deleted") else { continue }
            return OwnerRecognition(
                ManagerMetadata(
                    manager: manager, config: pool, name: components[at...].joined(separator: "/")))
        }
        return nil
    }
}
