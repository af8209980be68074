/// containers/storage's btrfs driver (podman, rootful and rootless, buildah, CRI-O):
/// `GRAPHROOT/btrfs/subvolumes/ID` beside `GRAPHROOT/btrfs-layers/layers.json`, wherever
/// `storage.conf` puts the graph root (`/var/lib/containers/storage`,
/// `~/.local/share/containers/storage`, `/srv/podman/storage`…). Shown as `podman`.
struct ContainersStorageOwner: SnapshotOwner {
    var manager: SnapshotManager { .podman }
    var pathHints: [StaticString] { ["btrfs/subvolumes/"] }
    var deletingTool: String? { "podman" }

    func recognise(_ place: OwnerPlace, context: OwnerContext) -> OwnerRecognition? {
        guard GraphDriverLayout.engine(of: place, probe: context.probe) == .containersStorage else { return nil }
        return OwnerRecognition(GraphDriverLayout.metadata(manager, place))
    }
}

extension SnapshotManager {
    public static let podman = SnapshotManager(rawValue: "podman")
}
