/// The ability to delete snapshots. The primitives check nothing: `SnapshotDeleter.delete`
/// is the one caller, and it applies the safety rules to `currentState` first.
public protocol SnapshotDeleting: Sendable {
    /// The volume as the filesystem has it now (mounts, nested volumes), keeping
    /// `subvolume`'s manager metadata; nil when it is known to be gone. A backend whose
    /// deletion call refuses a rule itself (see `RefusedByFilesystem`), or fails with
    /// ENOENT for a volume that is gone, may leave that to the call.
    func currentState(of subvolume: Volume, on filesystem: Filesystem) throws -> Volume?
    /// `subvolume` with whether it was written to since it was taken read afresh (a clone
    /// may be written to while a prompt waits); asked only where the clone rule applies.
    func refreshingCloneState(of subvolume: Volume, on filesystem: Filesystem) throws -> Volume
    /// Every volume nested below `subvolume` as the filesystem has it now, classified
    /// and with its mounts, parents before what they hold: what `--recursive` deletes.
    func nestedVolumes(of subvolume: Volume, on filesystem: Filesystem) throws -> [Volume]
    /// Deletes the volume: by path when a mount reaches it, else by id.
    /// Throws a `SystemCallError` that keeps errno (ENOENT when it is already gone), or
    /// `RefusedByFilesystem` when the filesystem refused it for a reason it names.
    /// The snapshot is named by whoever reports the error: only its cause is shown.
    func deleteSubvolume(_ subvolume: Volume, on filesystem: Filesystem, recursive: Bool) throws
}

/// A backend whose nested volumes are what its listing shows below a volume (btrfs). Its
/// listing is plain until owners classify it, so the registry answers `nestedVolumes`
/// from its own classified listing; the backend's own answer has no owners.
public protocol NestedInListing: SnapshotDeleting, SnapshotListing {}

extension NestedInListing {
    /// The plain volumes below `subvolume`, unclassified (see `NestedInListing`).
    public func nestedVolumes(of subvolume: Volume, on filesystem: Filesystem) throws -> [Volume] {
        NestedVolumes([try subvolumes(of: filesystem, sizes: .none)]).below(subvolume, on: filesystem)
    }
}

/// The filesystem refused a deletion in the deletion call itself, for a rule carve keeps
/// too or for a state only it sees: btrfs will not delete the default subvolume (EPERM)
/// nor, unless recursive, a subvolume with others inside (ENOTEMPTY), checking both under
/// its own locks, so a change made after carve's last look is still caught; nor one a
/// `btrfs send` is reading or that holds an active swap file (EPERM both).
public struct RefusedByFilesystem: Error, Sendable {
    public var protection: Protection
    public init(_ protection: Protection) { self.protection = protection }
}
