/// The ability every backend has: finding its filesystems and listing their volumes.
/// The planners and commands see backends only through these protocols, so tests hand
/// in fakes and a new filesystem needs its own backend plus one registration.
public protocol SnapshotListing: Sendable {
    /// Every mounted filesystem of this kind, each once however many times it is mounted.
    func mountedFilesystems() throws -> [Filesystem]
    /// The mounted filesystems of one kind: asks no other backend (no `lvs` run to find
    /// the btrfs backups of a listing).
    func mountedFilesystems(ofKind kind: FilesystemKind) throws -> [Filesystem]
    /// The filesystem of this kind holding `path`; a `RuntimeError` naming the path and
    /// its filesystem type when it is not of this kind, a `UsageError` when it does not exist.
    func filesystem(containing path: String) throws -> Filesystem
    /// Whether `name` is this backend's own kind of name rather than a path (ZFS's
    /// `pool/dataset@snapshot`): it is then read as such, relative or not.
    func claims(_ name: String) -> NameClaim
    /// The filesystem among `filesystems` and the volume `path` lands in, in one system
    /// call; nil when it is none of them or cannot be told. A hint for naming snapshots
    /// fast: a caller still checks that the volume's own path is `path`.
    func locate(_ path: String, among filesystems: [Filesystem]) -> VolumeLocation?
    /// Every volume of `filesystem` from the top down. A backend lists them plain, as the
    /// filesystem describes them, with the facts owners need (`ownerFacts`); the registry
    /// classifies them (`OwnerClassification`) and then calls `finishListing`, so what
    /// callers of the registry get has manager metadata attached and sizes as `sizes` asks.
    func subvolumes(of filesystem: Filesystem, sizes: SizeMode) throws -> VolumeListing
    /// What the backend adds once owners have classified `listing`, which depends on
    /// their verdicts or must follow their warnings (btrfs: the clones in use among plain
    /// snapshots, then the sizes). Nothing by default.
    func finishListing(_ listing: inout VolumeListing, sizes: SizeMode) throws
    /// The volumes of `filesystem` a send/receive chain may link to listed ones: those
    /// received from the UUIDs `sent`, and those whose own UUID is in `sources` (where
    /// listed backups were sent from), each list in any order, a UUID in it more than
    /// once. Any superset will do: by default every volume.
    func chainRelatives(
        on filesystem: Filesystem, receivedFrom sent: [SubvolumeUUID], withUUIDs sources: [SubvolumeUUID]
    ) throws -> VolumeListing
}

extension SnapshotListing {
    public func claims(_ name: String) -> NameClaim { .no }

    public func finishListing(_ listing: inout VolumeListing, sizes: SizeMode) throws {}

    public func chainRelatives(
        on filesystem: Filesystem, receivedFrom sent: [SubvolumeUUID], withUUIDs sources: [SubvolumeUUID]
    ) throws -> VolumeListing {
        try subvolumes(of: filesystem, sizes: .none)
    }

    public func mountedFilesystems(ofKind kind: FilesystemKind) throws -> [Filesystem] {
        try mountedFilesystems().filter { $0.kind == kind }
    }
}

/// How paths on the command line are read: the same for every filesystem, so the
/// registry answers it once rather than any one backend for the others.
public protocol PathResolving: Sendable {
    /// `path` with every symlink resolved, its bytes kept; nil when it does not exist.
    func resolvedPath(_ path: String) -> String?
    /// The directory relative paths on the command line start from.
    var workingDirectory: String { get }
}

/// How a backend takes a name given on the command line.
public enum NameClaim: Int, Sendable, Comparable {
    /// A path, or another backend's name.
    case no
    /// Its kind of name, if no backend finds it otherwise: then its error is the run's
    /// (ZFS's `tank/home` where `zfs` is not installed: the error names the package;
    /// LVM's `vg0/pool` is still LVM's).
    case ifNothingElse
    /// Its own, whatever else it could be (a name of an imported ZFS pool).
    case yes

    public static func < (a: NameClaim, b: NameClaim) -> Bool { a.rawValue < b.rawValue }
}
