/// Deleting several snapshots in one call where the filesystem can (ZFS's `zfs destroy
/// fs@a,b,c`), without going round the rules: the batch's current state is read in one
/// call right before it, every rule is applied to each snapshot of it as `delete` applies
/// them to one, and only those that pass go in the call. Between that read and the call
/// ZFS itself refuses what it protects (a hold, a clone, a send taken meanwhile: the
/// batch is then tried one by one for ZFS's reason); the holders are looked at again
/// per snapshot (`recheck`), as for one.
extension SnapshotDeleter {
    /// At most this many snapshots go in one batch: a signal stops the run between two,
    /// and the progress moves at least this often.
    static let batchLimit = 256

    /// The positions of the batch that starts at `start`: it, then the snapshots of the
    /// same filesystem with the same batch key among the next untried ones (plan order
    /// kept within the batch), so a dataset's snapshots go together although the plan
    /// orders every dataset's snapshots by date. Only `start` when the backend cannot batch.
    func batch(of snapshots: [PlannedSnapshot], from start: Int, skipping taken: [Bool]) -> [Int] {
        guard let batches, batches.deletesInBatches(snapshots[start].filesystem.kind), isBatchable(snapshots[start]),
            let key = batches.batchKey(of: snapshots[start].subvolume, on: snapshots[start].filesystem)
        else { return [start] }
        var positions = [start]
        // A window of the plan, so a batch never scans ten thousand snapshots for one more.
        for position in (start + 1)..<min(snapshots.count, start + 4 * Self.batchLimit)
        where positions.count < Self.batchLimit && !taken[position] {
            if snapshots[position].filesystem.uuid == snapshots[start].filesystem.uuid,
                isBatchable(snapshots[position]),
                batches.batchKey(of: snapshots[position].subvolume, on: snapshots[position].filesystem) == key
            {
                positions.append(position)
            }
        }
        return positions
    }

    /// An owner that marks its directory or keeps metadata beside the snapshot has its
    /// snapshots deleted one at a time, by `delete`.
    private func isBatchable(_ snapshot: PlannedSnapshot) -> Bool {
        snapshot.subvolume.metadata.metadataPath == nil
            && SnapshotOwners.owner(snapshot.subvolume.metadata.manager)?.marksDeletion != true
    }

    /// Deletes a batch made by `batch(of:from:skipping:)`: one outcome per snapshot, in order.
    public func delete(batch: [PlannedSnapshot]) -> [DeletionOutcome] {
        guard batch.count > 1, let batches, let first = batch.first else {
            return batch.map(delete)
        }
        let filesystem = first.filesystem
        let states: [Volume?]
        do {
            states = try batches.currentStates(of: batch.map(\.subvolume), on: filesystem)
        } catch {
            return batch.map { DeletionOutcome(snapshot: $0, result: .failed(reportable(error, $0))) }
        }
        var outcomes: [DeletionOutcome?] = []
        var eligible: [(position: Int, current: Volume)] = []
        for (position, snapshot) in batch.enumerated() {
            guard let fresh = states[position] else {
                outcomes.append(DeletionOutcome(snapshot: snapshot, result: .alreadyGone))
                continue
            }
            let current: Volume, protections: [Protection]
            do {
                (current, protections) = try judged(snapshot, as: fresh)
            } catch {
                outcomes.append(DeletionOutcome(snapshot: snapshot, result: .failed(reportable(error, snapshot))))
                continue
            }
            if protections.isEmpty {
                eligible.append((position, current))
                outcomes.append(nil)
            } else {
                outcomes.append(DeletionOutcome(snapshot: snapshot, result: .refused(protections)))
            }
        }
        let errors = eligible.isEmpty ? [] : batches.deleteSubvolumes(eligible.map(\.current), on: filesystem)
        for (index, entry) in eligible.enumerated() {
            let snapshot = batch[entry.position]
            outcomes[entry.position] = DeletionOutcome(snapshot: snapshot, result: result(of: errors[index], snapshot))
        }
        return outcomes.map { $0! }
    }

    /// What a deletion call's error means for the snapshot, as `delete` reads it.
    private func result(of error: (any Error)?, _ snapshot: PlannedSnapshot) -> DeletionOutcome.Result {
        switch error {
        case nil: .deleted
        case let error as SystemCallError where error.errno == Errno.ENOENT: .alreadyGone
        case let refusal as RefusedByFilesystem: .refused([refusal.protection])
        case let error as SystemCallError: .failedToDelete(error)
        case let error?: .failed(reportable(error, snapshot))
        }
    }
}
