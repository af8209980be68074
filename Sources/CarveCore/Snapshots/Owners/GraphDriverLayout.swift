/// The btrfs graph driver's layout, which Docker and containers/storage (podman,
/// buildah, CRI-O) share: each layer and container is a subvolume
/// `GRAPHROOT/btrfs/subvolumes/ID` (a container's writable layer a snapshot of its image's
/// top layer). Which engine owns it shows beside it: containers/storage keeps
/// `GRAPHROOT/btrfs-layers/layers.json`, Docker `GRAPHROOT/image/btrfs`.
enum GraphDriverLayout {
    static let sequence = ["btrfs", "subvolumes"]

    enum Engine { case docker, containersStorage }

    /// The engine whose graph root holds `place`; nil when it is not in the layout.
    /// What lies beside it decides; when a mount does not reach it, or neither file is
    /// there yet, a graph root under a `docker` directory is Docker's and any other is
    /// containers/storage's (the library every other engine uses).
    static func engine(of place: OwnerPlace, probe: OwnerProbe) -> Engine? {
        guard let (mounted, prefix) = place.find(sequence) else { return nil }
        if mounted {
            let graphRoot = prefix.isEmpty ? "" : "/" + prefix.joined(separator: "/")
            if probe(graphRoot + "/btrfs-layers/layers.json") { return .containersStorage }
            if probe(graphRoot + "/image/btrfs") { return .docker }
        }
        return prefix.contains("docker") ? .docker : .containersStorage
    }

    /// What carve shows of a layer: its owner alone (the layer ID is the last component
    /// of its path; the engine's database, not read, names the container).
    static func metadata(_ manager: SnapshotManager, _ place: OwnerPlace) -> ManagerMetadata {
        ManagerMetadata(manager: manager)
    }
}
