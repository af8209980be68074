/// What kind of storage holds a filesystem's snapshots; it chooses the backend
/// (`SnapshotBackendRegistry.backend(for:)`), as snapper's `Filesystem::create` does.
/// Hashed by its case (`HashedByCase`): the registry looks a backend up by kind for
/// every snapshot a run deletes, and the text's hash cost more than the lookup.
public enum FilesystemKind: String, Sendable, HashedByCase, Codable, CaseIterable {
    case btrfs
    /// LVM thin volumes of one thin pool (`VG/POOL`).
    case lvmThin = "lvm-thin"
    /// The datasets of one ZFS pool (or of one dataset and those below it, when named).
    case zfs
}

/// Every ability a backend that deletes has: listing, deleting and waiting for the space,
/// and reading the paths that name snapshots. btrfs has them all, and so has
/// `SnapshotBackendRegistry`. What snapshot owners keep beside their snapshots is
/// theirs (`OwnerHousekeeping`), not the backend's.
public typealias SnapshotBackend = SnapshotListing & SnapshotDeleting & SpaceWaiting & PathResolving

/// A filesystem's space: logical bytes used by data and metadata, and what statfs calls
/// available and the size (what `df` shows; 0 when unknown).
public struct SpaceUsage: Sendable, Hashable, Codable {
    public var used: UInt64
    public var available: UInt64
    public var size: UInt64
    public init(used: UInt64, available: UInt64, size: UInt64 = 0) {
        self.used = used; self.available = available; self.size = size
    }
}
