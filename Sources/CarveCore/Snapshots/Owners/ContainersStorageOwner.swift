/// containers/storage's btrfs driver (podman, rootful and rootless, buildah, CRI-O):
/// `GRAPHROOT/btrfs/subvolumes/ID` beside `GRAPHROOT/btrfs-layers/layers.json`, wherever
/// `storage.conf` puts the graph root (`/var/lib/containers/storage`,
/// `~/.local/share/containers/storage`, `/srv/podman/storage`…). Shown as `podman`.
struct ContainersStorageOwner: SnapshotOwner {
    var manager: SnapshotManager { .podman }
    var pathHints: [StaticString] { ["btrfs/subvolumes/"] }
    var deletingTool: String? { "podman" }

    func recognise(_ place: OwnerPlace, probe: OwnerProbe) -> ManagerMetadata? {
        guard GraphDriverLayout.engine(of: place, probe: probe) == .containersStorage else { return nil }
        return GraphDriverLayout.metadata(manager, place)
    }
}
