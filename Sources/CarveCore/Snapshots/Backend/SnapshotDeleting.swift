/// The ability to delete snapshots. The primitives check nothing: `SnapshotDeleter.delete`
/// is the one caller, and it applies the safety rules to `currentState` first.
public protocol SnapshotDeleting: Sendable {
    /// The volume as the filesystem has it now (still there, default, mounts, nested
    /// volumes), keeping `subvolume`'s manager metadata; nil when it is gone.
    func currentState(of subvolume: Volume, on filesystem: Filesystem) throws -> Volume?
    /// Deletes the volume: by path when a mount reaches it, else by id.
    /// Throws a `SystemCallError` that keeps errno (ENOENT when it is already gone).
    func deleteSubvolume(_ subvolume: Volume, on filesystem: Filesystem, recursive: Bool) throws
    /// Removes the manager's metadata of a deleted snapshot (snapper's `.snapshots/N`,
    /// timeshift's snapshot directory), only once no volume is left inside it.
    /// Returns the path removed, or nil when there was nothing (yet) to remove.
    func removeManagerMetadata(of subvolume: Volume, on filesystem: Filesystem) throws -> String?
}
