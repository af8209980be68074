/// Who owns a snapshot, as recognised from its layout and metadata: a snapshot manager
/// (snapper, timeshift, btrbk), a container engine (docker, podman for
/// containers/storage, machines for systemd-nspawn, incus for Incus and LXD), or none.
/// Each owner declares its own name beside its `SnapshotOwner`
/// (`Snapshots/Owners/NAME/`); the names carve knows are those of `SnapshotOwners.all`.
public struct SnapshotManager: RawRepresentable, Sendable, Hashable, Codable, CaseIterable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Encoded as its name alone, as the enum it once was.
    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// No owner: a snapshot in no known layout.
    public static let plain = SnapshotManager(rawValue: "plain")

    /// Every name carve knows: the managers, `plain`, then the container engines.
    public static var allCases: [SnapshotManager] { SnapshotOwners.names.map(SnapshotManager.init(rawValue:)) }

    /// The known owner of this name; nil for a name no owner registered (see `allCases`).
    public init?(known name: String) {
        guard SnapshotOwners.names.contains(name) else { return nil }
        rawValue = name
    }

    /// True for a container engine: its subvolumes are its live data (layers, containers,
    /// their snapshots), tracked in its own database, never deleted by carve.
    public var isContainerEngine: Bool { SnapshotOwners.engine(self) != nil }
}
