extension CheckPlanner {
    /// Where a new partition of `bytes` can go on `disk`: the first free gap that holds
    /// it once aligned, else right after the partition whose shrink makes room with the
    /// least shrinking. `subjects` are the disk's partitions with their figures.
    public static func newPartition(
        on disk: BlockDevice, table: PartitionTable, bytes: UInt64, subjects: [ShrinkSubject]
    ) -> CheckReport {
        let operation = CheckOperation.newPartition(bytes)
        if let full = fullDOSTable(table) {
            return CheckReport(
                device: disk.path, filesystem: nil, operation: operation, currentSize: nil, targetSize: bytes,
                blockers: [Blocker(.noRoom, detail: full)])
        }
        for gap in table.freeGaps {
            if let place = table.alignedPlace(bytes: bytes, from: gap.start, through: gap.end) {
                var report = CheckReport(
                    device: disk.path, filesystem: nil, operation: operation, currentSize: table.bytes(gap.size),
                    targetSize: bytes, newPartition: place,
                    notes: [
                        "the free gap at sectors \(gap.start)-\(gap.end) (\(ByteSize.format(table.bytes(gap.size)))) holds it"
                    ]
                )
                report.steps = ResizeSteps.plan(report, subject: nil, target: nil)
                return report
            }
        }
        let largestGap = table.freeGaps.map { table.bytes($0.size) }.max() ?? 0
        let noGap =
            "no free gap holds \(ByteSize.format(bytes)) once aligned to \(ByteSize.format(table.grain)) "
            + "(largest free gap: \(ByteSize.format(largestGap)))"
        let candidates = subjects.compactMap { makingRoom(after: $0, bytes: bytes, table: table, disk: disk) }
        if let best = candidates.filter({ $0.verdict == .fits }).max(by: { $0.targetSize < $1.targetSize }) {
            var report = best
            report.notes.insert(noGap, at: 0)
            return report
        }
        guard var report = candidates.min(by: { shortfall($0) < shortfall($1) }) else {
            return CheckReport(
                device: disk.path, filesystem: nil, operation: operation, currentSize: largestGap, targetSize: bytes,
                blockers: [
                    Blocker(
                        .noRoom, bytes: bytes - min(bytes, largestGap),
                        detail: noGap + ", and no partition can make room")
                ]
            )
        }
        report.blockers.insert(Blocker(.noRoom, bytes: bytes - min(bytes, largestGap), detail: noGap), at: 0)
        report.steps = []
        for other in candidates where other.shrunkPartition != report.shrunkPartition {
            let why = other.blockers.first?.detail ?? "fits"
            report.notes.append("shrinking partition \(other.shrunkPartition?.number ?? 0) instead: \(why)")
        }
        return report
    }

    /// The check for shrinking `subject`'s partition just enough that the new partition
    /// fits between it and whatever follows; nil when no shrink of it can make room.
    static func makingRoom(
        after subject: ShrinkSubject, bytes: UInt64, table: PartitionTable, disk: BlockDevice
    ) -> CheckReport? {
        guard let partition = subject.partition else { return nil }
        let grain = table.grainSectors
        let length = (table.sectors(holding: bytes) + grain - 1) / grain * grain
        let last = min(table.lastFreeSector(after: partition), table.lastUsableLBA)
        guard last + 1 >= length else { return nil }
        let newStart = (last + 1 - length) / grain * grain
        guard newStart > partition.start, newStart <= partition.end else { return nil }
        let keptSectors = newStart - partition.start
        var report = shrink(subject, to: table.bytes(keptSectors), operation: .newPartition(bytes))
        report.device = disk.path
        report.shrunkPartition = PlannedPartition(
            number: partition.number,
            range: SectorRange(start: partition.start, end: newStart - 1, sectorSize: table.sectorSize)
        )
        report.newPartition = SectorRange(start: newStart, end: newStart + length - 1, sectorSize: table.sectorSize)
        var target = subject.stepTarget
        target?.disk = disk.path
        report.steps = ResizeSteps.plan(report, subject: subject, target: target)
        return report
    }

    /// A DOS table holds four primary partitions; a fifth needs an extended one, which
    /// carve does not plan. Nil when there is a free slot (or the table is not DOS).
    static func fullDOSTable(_ table: PartitionTable) -> String? {
        guard table.label == .dos, Set(table.partitions.map(\.number).filter { $0 <= 4 }).count >= 4 else { return nil }
        return "the DOS table already holds four primary partitions, the most it can: "
            + "a new one needs an extended partition (or a GPT table), which carve does not plan"
    }

    /// How far a candidate is from fitting: types that cannot shrink rank last.
    static func shortfall(_ report: CheckReport) -> UInt64 {
        if report.blockers.contains(where: { [.cannotShrink, .cannotTell, .minimumUnknown].contains($0.kind) }) {
            return .max
        }
        return report.blockers.first { $0.kind == .belowMinimum }?.bytes ?? 0
    }
}
