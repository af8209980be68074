/// Filesystem snapshots, behind a protocol so the planners and commands can be
/// tested on fakes. btrfs is the implementation in CarveLinux.
public protocol SnapshotBackend: Sendable {
    /// Every mounted btrfs filesystem, each once however many times it is mounted.
    func mountedFilesystems() throws -> [Filesystem]
    /// The btrfs filesystem holding `path`; a `RuntimeError` naming the path and its
    /// filesystem type when it is not btrfs, a `UsageError` when it does not exist.
    func filesystem(containing path: String) throws -> Filesystem
    /// `path` with every symlink resolved, its bytes kept; nil when it does not exist.
    func resolvedPath(_ path: String) -> String?
    /// The filesystem among `filesystems` and the volume `path` lands in, in one system
    /// call; nil when it is none of them or cannot be told. A hint for naming snapshots
    /// fast: a caller still checks that the volume's own path is `path`.
    func locate(_ path: String, among filesystems: [Filesystem]) -> VolumeLocation?
    /// Every subvolume of `filesystem` from the top level down, with manager
    /// metadata attached and sizes found as `sizes` asks.
    func subvolumes(of filesystem: Filesystem, sizes: SizeMode) throws -> VolumeListing

    // Deletion primitives. They check nothing: `SnapshotDeleter.delete` is the one
    // caller, and it applies the safety rules to `currentState` first.

    /// The subvolume as the filesystem has it now (still there, default, mounts,
    /// nested subvolumes), keeping `subvolume`'s manager metadata; nil when it is gone.
    func currentState(of subvolume: Volume, on filesystem: Filesystem) throws -> Volume?
    /// Deletes the subvolume: by path when a mount reaches it, else by id.
    /// Throws a `SystemCallError` that keeps errno (ENOENT when it is already gone).
    func deleteSubvolume(_ subvolume: Volume, on filesystem: Filesystem, recursive: Bool) throws
    /// Removes the manager's metadata of a deleted snapshot (snapper's `.snapshots/N`,
    /// timeshift's snapshot directory), only once no subvolume is left inside it.
    /// Returns the path removed, or nil when there was nothing (yet) to remove.
    func removeManagerMetadata(of subvolume: Volume, on filesystem: Filesystem) throws -> String?
    /// Commits the transaction and waits until the cleaner has dropped every subvolume in `ids`.
    func waitForCleanup(of ids: [UInt64], on filesystem: Filesystem) throws
    /// How much of the filesystem is used and free now.
    func spaceUsage(of filesystem: Filesystem) throws -> SpaceUsage
}

/// A filesystem's space: logical bytes used by data and metadata, and what statfs calls available.
public struct SpaceUsage: Sendable, Hashable, Codable {
    public var used: UInt64
    public var available: UInt64
    public init(used: UInt64, available: UInt64) { self.used = used; self.available = available }
}

extension SnapshotBackend {
    // A backend that can only list (a listing fake) refuses to delete, with a reason.
    public func currentState(of subvolume: Volume, on filesystem: Filesystem) throws -> Volume? {
        throw RuntimeError("this snapshot backend cannot delete snapshots")
    }
    public func deleteSubvolume(_ subvolume: Volume, on filesystem: Filesystem, recursive: Bool) throws {
        throw RuntimeError("this snapshot backend cannot delete snapshots")
    }
    public func removeManagerMetadata(of subvolume: Volume, on filesystem: Filesystem) throws -> String? { nil }
    public func waitForCleanup(of ids: [UInt64], on filesystem: Filesystem) throws {
        throw RuntimeError("this snapshot backend cannot wait for the btrfs cleaner")
    }
    public func spaceUsage(of filesystem: Filesystem) throws -> SpaceUsage {
        throw RuntimeError("this snapshot backend cannot read space usage")
    }
}
