/// Judges a shrink or a new partition from gathered facts: pure, never touches a device.
public enum CheckPlanner {
    /// Whether `subject` can shrink to `target` bytes, with every blocker and remedy.
    public static func shrink(_ subject: ShrinkSubject, to target: UInt64, operation: CheckOperation) -> CheckReport {
        var report = CheckReport(
            device: subject.device.path, filesystem: subject.fsType, operation: operation,
            currentSize: subject.currentSize, targetSize: target, minimumSize: subject.figures.minimum,
            minimumSource: subject.figures.source
        )
        if let table = subject.table, let partition = subject.partition {
            report.shrunkPartition = PlannedPartition(
                number: partition.number, range: shrunkRange(partition, to: target, in: table))
        }
        if let note = subject.figures.note { report.notes.append(note) }
        if let btrfs = subject.figures.btrfs, let mountpoint = subject.mountpoints.first {
            report.notes += btrfs.memberNotes(target: target, mountpoint: mountpoint)
        }
        guard target < subject.currentSize else { return report }
        checkAbility(subject, target: target, into: &report)
        ZFSMemberCheck.add(subject, into: &report)
        checkMinimum(subject, target: target, into: &report)
        report.steps = ResizeSteps.plan(report, subject: subject, target: subject.stepTarget)
        return report
    }

    /// The partition's new boundaries for a filesystem of `target` bytes: same start,
    /// length rounded up to whole grains (never past its current end).
    static func shrunkRange(_ partition: PartitionEntry, to target: UInt64, in table: PartitionTable) -> SectorRange {
        let grain = table.grainSectors
        let length = min(partition.size, (table.sectors(holding: target) + grain - 1) / grain * grain)
        return SectorRange(start: partition.start, end: partition.start + length - 1, sectorSize: table.sectorSize)
    }

    /// What the shrink table says about this filesystem type and its mount state.
    static func checkAbility(_ subject: ShrinkSubject, target: UInt64, into report: inout CheckReport) {
        let rule = subject.rule
        let device = subject.device.path
        let type = subject.fsType ?? "no filesystem"
        switch rule.ability {
        case .cannotShrink:
            report.blockers.append(
                Blocker(
                    .cannotShrink, bytes: subject.currentSize - target, detail: "\(type) on \(device): \(rule.note)"))
        case .unknown:
            report.blockers.append(Blocker(.cannotTell, detail: "\(device): \(rule.note)"))
        case .onlineOnly where subject.mountpoints.isEmpty:
            report.blockers.append(
                Blocker(.mustMount, detail: "\(type) shrinks only while mounted, and \(device) is not mounted"))
            report.remedies.append(
                Remedy(command: "mount \(shellQuoted(device)) /mnt", detail: "mount it, then check again"))
        case .offlineOnly where !subject.mountpoints.isEmpty:
            let places = subject.mountpoints.joined(separator: ", ")
            report.blockers.append(
                Blocker(
                    .mustUnmount, detail: "\(type) shrinks only while unmounted, and \(device) is mounted at \(places)")
            )
            for mountpoint in subject.mountpoints {
                report.remedies.append(
                    Remedy(command: "umount \(shellQuoted(mountpoint))", detail: "unmount it before shrinking"))
            }
        case .recreate:
            if let busy = subject.busy {
                report.blockers.append(
                    Blocker(.inUse, detail: "\(device) is \(busy); swap is recreated only when not in use"))
                report.remedies.append(
                    Remedy(
                        command: "swapoff \(shellQuoted(device))", detail: "stop using it, then recreate it with mkswap"
                    ))
            }
        case .onlineOnly, .offlineOnly:
            break
        }
    }

    /// Compares the target with the minimum and names what would lower the minimum.
    static func checkMinimum(_ subject: ShrinkSubject, target: UInt64, into report: inout CheckReport) {
        switch subject.rule.ability {
        case .cannotShrink, .unknown: return
        case .onlineOnly, .offlineOnly, .recreate: break
        }
        let device = subject.device.path
        guard let minimum = subject.figures.minimum else {
            let why = subject.figures.note.map { ": \($0)" } ?? ""
            report.blockers.append(Blocker(.minimumUnknown, detail: "cannot tell the minimum size of \(device)\(why)"))
            return
        }
        let snapshots = SnapshotsInTheWay(subject: subject, target: target)
        report.minimumSizeWithoutSnapshots = snapshots.minimumWithoutSnapshots
        // btrfs: the relocation is simulated at the target itself, not only compared.
        guard target < minimum || subject.figures.btrfs?.fits(size: target) == false else { return }
        let short = minimum > target ? "; the target is \(ByteSize.format(minimum - target)) short" : ""
        report.blockers.append(
            Blocker(
                .belowMinimum, bytes: minimum > target ? minimum - target : nil,
                detail: "\(subject.fsType ?? "the filesystem") on \(device) needs at least \(ByteSize.format(minimum)) "
                    + "(\(minimum) bytes, from \(subject.figures.source))\(short)"
            ))
        addBalance(subject, target: target, minimum: minimum, into: &report)
        snapshots.add(into: &report)
    }

    /// btrfs: a balance gives back over-allocated metadata chunks.
    static func addBalance(_ subject: ShrinkSubject, target: UInt64, minimum: UInt64, into report: inout CheckReport) {
        guard let afterBalance = subject.figures.minimumAfterBalance, afterBalance < minimum,
            let mountpoint = subject.mountpoints.first
        else { return }
        let command = balanceCommand(mountpoint)
        if target >= afterBalance {
            report.blockers.append(
                Blocker(
                    .allocatedChunks, bytes: minimum - afterBalance,
                    detail:
                        "chunks are allocated but part empty: a shrink moves chunks whole when there is no room to repack them"
                ))
            report.remedies.append(
                Remedy(
                    command: command, frees: minimum - afterBalance,
                    detail: "repacks the chunks; the minimum becomes about \(ByteSize.format(afterBalance))"
                ))
        } else {
            report.notes.append(
                "after `\(command)` the minimum would be \(ByteSize.format(afterBalance)), still above the target")
        }
    }

    /// The balance that repacks part-empty data chunks (metadata is left alone: a
    /// metadata balance can allocate larger chunks than it frees).
    static func balanceCommand(_ mountpoint: String) -> String {
        "btrfs balance start -dusage=100 \(shellQuoted(mountpoint))"
    }
}
