/// A snapshot chosen for deletion, with the filesystem it lives on.
public struct PlannedSnapshot: Sendable, Hashable {
    public var subvolume: Volume
    public var filesystem: Filesystem
    /// True when the user named it (path, number, id) rather than a selection option
    /// choosing it: a named snapshot that cannot be deleted counts as a failure.
    public var named: Bool
    public init(subvolume: Volume, filesystem: Filesystem, named: Bool = false) {
        self.subvolume = subvolume; self.filesystem = filesystem; self.named = named
    }

    /// How the snapshot is named in messages: its mounted path, or its path from the
    /// top level as btrfs-progs writes it.
    public var displayPath: String {
        // A ZFS snapshot goes by its ZFS name, however it is mounted.
        filesystem.kind == .zfs ? subvolume.path : subvolume.mountedPath ?? "<FS_TREE>/" + subvolume.path
    }
    /// Identifies the snapshot across listings: the filesystem and the subvolume id.
    public var key: SnapshotKey { SnapshotKey(filesystem: filesystem.uuid, id: subvolume.id) }
}

/// A snapshot's identity: its filesystem's UUID and its subvolume id.
public struct SnapshotKey: Sendable, Hashable {
    public var filesystem: String
    public var id: UInt64

    /// The id alone: keys of one plan are nearly always of one filesystem, and hashing its
    /// UUID's 36 bytes for each of a thousand named snapshots cost more than the rest of
    /// deduplicating them. Equal keys still hash alike; the few of another filesystem
    /// with the same id are told apart by `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// What happened to one snapshot the executor tried to delete.
public struct DeletionOutcome: Sendable {
    public enum Result: Sendable {
        /// carve deleted it.
        case deleted
        /// It was gone before carve got to it (someone else deleted it): counted as done.
        case alreadyGone
        /// Its current state breaks a safety rule: not deleted.
        case refused([Protection])
        /// The deletion failed; the error names the call and errno.
        case failed(any ReportableError)
        /// The deletion call failed: only the cause, the report names the snapshot.
        case failedToDelete(SystemCallError)
    }

    public var snapshot: PlannedSnapshot
    public var result: Result { didSet { isDone = Self.isDone(result) } }
    /// The manager metadata removed after the snapshot (snapper's `.snapshots/N`).
    public var metadataRemoved: String?
    /// Why the manager metadata could not be removed, when it could not.
    public var metadataWarning: String?
    /// True for a snapshot that is gone now, whoever deleted it. Kept beside the result:
    /// counting a run's outcomes read from the result copied each outcome whole.
    public private(set) var isDone: Bool

    public init(
        snapshot: PlannedSnapshot, result: Result, metadataRemoved: String? = nil, metadataWarning: String? = nil
    ) {
        self.snapshot = snapshot; self.result = result
        self.metadataRemoved = metadataRemoved; self.metadataWarning = metadataWarning
        isDone = Self.isDone(result)
    }

    private static func isDone(_ result: Result) -> Bool {
        switch result {
        case .deleted, .alreadyGone: true
        case .refused, .failed, .failedToDelete: false
        }
    }

    /// The reason it was not deleted, in one phrase; nil when it is done.
    public var errorText: String? {
        switch result {
        case .deleted, .alreadyGone: nil
        case .refused(let protections): protections.map(\.reason).joined(separator: "; ")
        case .failed(let error): error.message
        case .failedToDelete(let error): error.cause
        }
    }
}

/// Deletes snapshots, and is the only code in carve that does: the safety rules are
/// checked here, against the filesystem's state right before each deletion, never
/// left to the callers. Where the filesystem checks a rule inside the deletion call
/// (btrfs: the default subvolume, nested subvolumes), its refusal is that rule's verdict.
public struct SnapshotDeleter: Sendable {
    public let backend: any SnapshotBackend
    public let rules: DeletionRules
    /// What the owners keep beside their snapshots (markers, metadata).
    public let owners: any OwnerHousekeeping
    /// The backend as one that deletes in batches, when it is: cast once, not per snapshot.
    let batches: (any SnapshotBatchDeleting)?

    /// `owners` nil: the backend's own when it keeps them too (a fake), else none.
    public init(backend: any SnapshotBackend, rules: DeletionRules, owners: (any OwnerHousekeeping)? = nil) {
        self.backend = backend; self.rules = rules
        self.owners = owners ?? (backend as? any OwnerHousekeeping) ?? NoOwnerHousekeeping()
        batches = backend as? any SnapshotBatchDeleting
    }

    /// Deletes one snapshot if its current state allows it, then its manager metadata.
    public func delete(_ snapshot: PlannedSnapshot) -> DeletionOutcome {
        let filesystem = snapshot.filesystem
        let current: Volume
        let protections: [Protection]
        do {
            guard let fresh = try backend.currentState(of: snapshot.subvolume, on: filesystem) else {
                return removingMetadata(DeletionOutcome(snapshot: snapshot, result: .alreadyGone))
            }
            (current, protections) = try judged(snapshot, as: fresh)
        } catch {
            return DeletionOutcome(snapshot: snapshot, result: .failed(reportable(error, snapshot)))
        }
        guard protections.isEmpty else {
            return DeletionOutcome(snapshot: snapshot, result: .refused(protections))
        }
        let marked = mark(current, on: filesystem)
        do {
            try backend.deleteSubvolume(current, on: filesystem, recursive: rules.recursive)
        } catch let error as SystemCallError where error.errno == Errno.ENOENT {
            return removingMetadata(DeletionOutcome(snapshot: snapshot, result: .alreadyGone))
        } catch let refusal as RefusedByFilesystem {
            if marked { try? owners.unmarkDeletion(of: current, on: filesystem) }
            return DeletionOutcome(snapshot: snapshot, result: .refused([refusal.protection]))
        } catch let error as SystemCallError {
            if marked { try? owners.unmarkDeletion(of: current, on: filesystem) }
            return DeletionOutcome(snapshot: snapshot, result: .failedToDelete(error))
        } catch {
            if marked { try? owners.unmarkDeletion(of: current, on: filesystem) }
            return DeletionOutcome(snapshot: snapshot, result: .failed(reportable(error, snapshot)))
        }
        return removingMetadata(DeletionOutcome(snapshot: snapshot, result: .deleted))
    }

    /// The rules `snapshot` breaks in its current state (`fresh`, as the backend reads it
    /// right before the deletion), with what else is read only now: a plain snapshot's
    /// clone state (a clone may have been written to since the plan), and with
    /// `--recursive` the subvolumes nested in it (what goes with it is what is there now).
    func judged(_ snapshot: PlannedSnapshot, as fresh: Volume) throws -> (Volume, [Protection]) {
        let filesystem = snapshot.filesystem
        var current = fresh
        if !snapshot.named && current.mayBecomeCloneInUse {
            current = try backend.refreshingCloneState(of: current, on: filesystem)
        }
        let nested =
            rules.recursive && current.hasNestedSubvolumes ? try backend.nestedVolumes(of: current, on: filesystem) : []
        let protections = rules.protections(
            of: current, on: filesystem, named: snapshot.named, recheck: true, nested: nested)
        return (current, protections)
    }

    /// Marks the directory of an owner that marks (snapper's, timeshift's) before its subvolume goes, so
    /// a run killed in between leaves what the next run finishes. True when a failed
    /// deletion takes the marker back (see `markDeletion`). A marker that cannot be
    /// written (a full disk) does not stop the deletion: freeing space comes first.
    private func mark(_ subvolume: Volume, on filesystem: Filesystem) -> Bool {
        guard SnapshotOwners.owner(subvolume.metadata.manager)?.marksDeletion == true,
            subvolume.metadata.metadataPath != nil
        else { return false }
        return (try? owners.markDeletion(of: subvolume, on: filesystem)) ?? false
    }

    /// The manager's metadata goes only after the snapshot itself is gone, so a
    /// crash in between leaves a snapshot without metadata, never the reverse.
    private func removingMetadata(_ outcome: DeletionOutcome) -> DeletionOutcome {
        var outcome = outcome
        guard outcome.snapshot.subvolume.metadata.metadataPath != nil else { return outcome }
        do {
            outcome.metadataRemoved = try owners.removeManagerMetadata(
                of: outcome.snapshot.subvolume, on: outcome.snapshot.filesystem)
        } catch {
            outcome.metadataWarning = reportable(error, outcome.snapshot).message
        }
        return outcome
    }

    func reportable(_ error: any Error, _ snapshot: PlannedSnapshot) -> any ReportableError {
        if let error = error as? any ReportableError { return error }
        return RuntimeError("cannot delete snapshot \(snapshot.displayPath): \(error)")
    }
}
