/// btrfs: which snapshots pin the space a shrink needs, and the fewest oldest ones
/// whose deletion would make it fit.
///
/// A snapshot's exclusive bytes are a lower bound of what its deletion gives back
/// (deleting a set frees at least the sum of their `excl`, often more), so a "fits
/// after deleting these" built on the sum does not promise more than happens.
struct SnapshotsInTheWay {
    let subject: ShrinkSubject
    let target: UInt64

    /// Snapshots carve may delete, oldest first.
    var deletable: [Volume] {
        (subject.snapshots?.subvolumes ?? []).filter { $0.isSnapshot && !$0.isProtected }.sorted {
            $0.olderFirstKey() < $1.olderFirstKey()
        }
    }

    /// True when every deletable snapshot has a known exclusive size.
    var sizesKnown: Bool {
        guard let listing = subject.snapshots, listing.sizes != .none else { return false }
        return deletable.allSatisfy { $0.exclusive != nil }
    }

    /// The minimum once every deletable snapshot is gone; nil when sizes are unknown.
    var minimumWithoutSnapshots: UInt64? {
        guard let allocation = subject.figures.btrfs, sizesKnown, let minimum = subject.figures.minimum else {
            return nil
        }
        let freed = self.freed(by: deletable)
        return min(minimum, allocation.minimumAfterBalance(freeingData: freed))
    }

    /// Adds the snapshot blocker and remedies, or the note on how to find out.
    func add(into report: inout CheckReport) {
        guard let listing = subject.snapshots, subject.figures.btrfs != nil else {
            if let note = subject.snapshotNote { report.notes.append(note) }
            return
        }
        let candidates = deletable
        guard !candidates.isEmpty, let allocation = subject.figures.btrfs,
            allocation.minimumAfterBalance() > target
        else { return }
        let mountpoint = listing.filesystem.mountpoint
        guard sizesKnown else {
            report.notes.append("\(candidates.count) snapshot(s) may be pinning space; their sizes are unknown")
            report.remedies.append(
                Remedy(
                    command: "carve snapshots list \(shellQuoted(mountpoint)) --sizes exact",
                    detail: "shows how much each snapshot holds exclusively, then check again"
                ))
            return
        }
        guard let chosen = fewestOldest(candidates) else {
            let all = freed(by: candidates)
            report.notes.append(
                "deleting all \(candidates.count) deletable snapshot(s) would free at least \(ByteSize.format(all)), not enough on its own"
            )
            return
        }
        let freed = self.freed(by: chosen)
        let names = chosen.map(displayName).joined(separator: ", ")
        var blocker = Blocker(
            .snapshots, bytes: freed,
            detail: "\(chosen.count) snapshot(s) pin \(ByteSize.format(freed)) the shrink needs: \(names)")
        blocker.snapshotIDs = chosen.map(\.id)
        report.blockers.append(blocker)
        report.remedies.append(
            Remedy(
                command:
                    "carve snapshots thin \(shellQuoted(mountpoint)) --free \(freed)\(sizesOption) --wait",
                frees: freed,
                detail: "deletes the oldest snapshots until \(ByteSize.format(freed)) is free"
            ))
        report.remedies.append(
            Remedy(
                command: CheckPlanner.balanceCommand(mountpoint),
                detail:
                    "then repack the chunks the deleted snapshots leave part empty (after the cleaner has freed them)"
            ))
        if chosen.allSatisfy({ $0.mountedPath != nil }) {
            let paths = chosen.compactMap(\.mountedPath).map(shellQuoted).joined(separator: " ")
            report.remedies.append(
                Remedy(
                    command: "carve snapshots delete --wait \(paths)", frees: freed,
                    detail: "deletes exactly these \(chosen.count)"
                ))
        }
    }

    /// The shortest oldest-first run of snapshots whose exclusive bytes bring the
    /// minimum down to the target; nil when even all of them do not.
    func fewestOldest(_ candidates: [Volume]) -> [Volume]? {
        guard let allocation = subject.figures.btrfs else { return nil }
        for (index, freed) in reclaimCurve(candidates).enumerated() {
            if allocation.minimumAfterBalance(freeingData: freed) <= target { return Array(candidates[...index]) }
        }
        return nil
    }

    func displayName(_ snapshot: Volume) -> String {
        let name = snapshot.mountedPath ?? snapshot.path
        return snapshot.exclusive.map { "\(name) (\(ByteSize.format($0)))" } ?? name
    }
}
