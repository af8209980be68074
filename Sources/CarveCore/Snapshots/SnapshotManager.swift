/// Who owns a snapshot, as recognised from its layout and metadata: a snapshot manager
/// (snapper, timeshift, btrbk), a container engine (docker, podman for
/// containers/storage, machines for systemd-nspawn, incus for Incus and LXD), or none.
public enum SnapshotManager: String, Sendable, Hashable, Codable, CaseIterable {
    case snapper, timeshift, btrbk, plain
    case docker, podman, machines, incus

    /// True for a container engine: its subvolumes are its live data (layers, containers,
    /// their snapshots), tracked in its own database, never deleted by carve.
    public var isContainerEngine: Bool { SnapshotOwners.engine(self) != nil }
}
