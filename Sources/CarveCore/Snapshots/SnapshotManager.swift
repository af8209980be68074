/// Who made a snapshot, as recognised from its layout and metadata.
public enum SnapshotManager: String, Sendable, Hashable, Codable, CaseIterable {
    case snapper, timeshift, btrbk, plain
}
