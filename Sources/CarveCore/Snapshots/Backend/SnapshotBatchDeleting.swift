/// A backend that deletes several snapshots in one call (ZFS: `zfs destroy fs@a,b,c`)
/// and reads their current state in one. `SnapshotDeleter` still applies every rule to
/// each snapshot's fresh state before the call; only the calls are shared.
public protocol SnapshotBatchDeleting: Sendable {
    /// What snapshots deleted together share (ZFS: their dataset); nil when this one
    /// goes alone.
    func batchKey(of subvolume: Volume, on filesystem: Filesystem) -> String?
    /// `currentState` of each, in order, in as few calls as the backend can.
    func currentStates(of subvolumes: [Volume], on filesystem: Filesystem) throws -> [Volume?]
    /// Deletes them all, in as few calls as the backend can; the error of each that is not
    /// gone (nil: deleted), as `deleteSubvolume` throws it.
    func deleteSubvolumes(_ subvolumes: [Volume], on filesystem: Filesystem) -> [(any Error)?]
    /// False when no snapshot of `kind` goes in a batch: asked before each snapshot of a
    /// run, it spares a kind that never batches (btrfs) the copies a batch key costs.
    func deletesInBatches(_ kind: FilesystemKind) -> Bool
}

extension SnapshotBatchDeleting {
    public func deletesInBatches(_ kind: FilesystemKind) -> Bool { true }
}

/// What deleting a set of snapshots frees, as the filesystem itself answers for the set
/// (ZFS: `zfs destroy -n -v -p`), rather than a sum of each one's exclusive bytes.
public protocol SnapshotReclaimMeasuring: Sendable {
    /// What deleting exactly `subvolumes` of `filesystem` frees together; nil when the
    /// filesystem cannot say.
    func measuredReclaim(of subvolumes: [Volume], on filesystem: Filesystem) throws -> MeasuredReclaim?
}

public struct MeasuredReclaim: Sendable, Hashable {
    public var bytes: UInt64
    /// True when the figure is what the set frees; false for a lower bound.
    public var exact: Bool
    /// How it was found, for the note that gives it.
    public var source: String
    public init(bytes: UInt64, exact: Bool, source: String) {
        self.bytes = bytes; self.exact = exact; self.source = source
    }
}

/// A filesystem of a listing of every one that cannot be listed now (a ZFS pool that is
/// suspended, a daemon that does not answer): a listing of everything leaves it out
/// with this reason as a warning; named, it is the run's error.
public struct FilesystemUnavailable: ReportableError {
    public var message: String
    public var exitStatus: ExitStatus { .failure }
    public init(_ message: String) { self.message = message }
}
