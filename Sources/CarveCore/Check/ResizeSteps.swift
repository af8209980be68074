/// One command of the plan that makes a "fits" real, and what it does. carve only
/// prints them: the user (or a script) runs them, in order, stopping at the first failure.
public struct ResizeStep: Sendable, Hashable, Codable {
    public var command: String
    public var explanation: String
    public init(_ command: String, _ explanation: String) { self.command = command; self.explanation = explanation }
}

/// Where the steps write: the disk's path and table, and the partition that shrinks.
public struct StepTarget: Sendable, Hashable {
    public var disk: String
    public var table: PartitionTable
    public var partition: PartitionEntry
    /// The partition's node, as sfdisk names it in `--dump` (`/dev/sda2`, `/dev/loop0p1`).
    public var node: String
    public init(disk: String, table: PartitionTable, partition: PartitionEntry, node: String) {
        self.disk = disk; self.table = table; self.partition = partition; self.node = node
    }
}

/// Turns a "fits" into commands, in the order that is safe for the filesystem: the
/// filesystem shrinks before its partition (never a partition below its filesystem),
/// the table is written by sfdisk only while it is still the one carve checked, and
/// the kernel is told last. Never a mkfs for a new partition: formatting is the user's.
public enum ResizeSteps {
    /// The steps for `report` about `subject` (nil for a new partition in a free gap);
    /// empty when it does not fit or nothing changes.
    public static func plan(_ report: CheckReport, subject: ShrinkSubject?, target: StepTarget?) -> [ResizeStep] {
        guard report.verdict == .fits else { return [] }
        var steps: [ResizeStep] = []
        if let subject, let shrink = filesystemSize(report, subject: subject) {
            guard let filesystem = filesystemSteps(subject, to: shrink) else { return [] }
            let guarded = target.map { [guardStep($0)] } ?? []
            steps += guarded + filesystem.before
            if let target, let planned = report.shrunkPartition?.range {
                steps.append(partitionStep(target, to: planned))
            }
            if let new = report.newPartition, let target { steps.append(creationStep(target.disk, new, after: target)) }
            if let target { steps.append(tellKernel(target.disk)) }
            steps += filesystem.after
        } else if let new = report.newPartition, let disk = target?.disk ?? gapDisk(report) {
            steps += [creationStep(disk, new, after: nil), tellKernel(disk)]
        }
        return steps
    }

    /// Bytes the filesystem shrinks to: the target in whole filesystem blocks, never more
    /// than the planned partition holds; nil when nothing shrinks.
    static func filesystemSize(_ report: CheckReport, subject: ShrinkSubject) -> UInt64? {
        let partition = report.shrunkPartition?.range.bytes ?? subject.currentSize
        let block = blockSize(subject)
        let bytes = min(report.targetSize, partition) / block * block
        guard bytes < subject.currentSize || partition < subject.currentSize, bytes > 0 else { return nil }
        return bytes
    }

    /// The filesystem's block: its own when carve read it, else 4 KiB (a multiple of
    /// every ext block size up to 4 KiB, btrfs's sector size on x86 and NTFS's usual cluster).
    static func blockSize(_ subject: ShrinkSubject) -> UInt64 { max(1, subject.figures.blockSize ?? 4096) }

    /// What the filesystem's own tool runs before the table changes, and after: its room's.
    static func filesystemSteps(_ subject: ShrinkSubject, to bytes: UInt64) -> ShrinkSteps? {
        FilesystemRooms.room(for: subject.fsType)?.steps(subject, to: bytes)
    }

    /// `sfdisk --dump` prints each partition as `NODE : start=   S, size=   N, ...`: the
    /// guard matches that line, so the steps stop (exit 1, nothing written) when the table
    /// is no longer the one carve checked.
    static func tableHolds(_ target: StepTarget, start: UInt64, sectors: UInt64) -> String {
        let pattern = "^" + basicRegexEscaped(target.node) + " : start= *\(start), size= *\(sectors),"
        return "sfdisk --dump \(shellQuoted(target.disk)) | grep -q \(shellQuoted(pattern))"
    }

    static func guardStep(_ target: StepTarget) -> ResizeStep {
        let entry = target.partition
        return ResizeStep(
            tableHolds(target, start: entry.start, sectors: entry.size),
            "writes nothing: fails unless partition \(entry.number) still starts at sector \(entry.start) with "
                + "\(entry.size) sectors, as carve checked; if it fails, run carve check again")
    }

    /// sfdisk takes start and size in sectors, so the table gets exactly the planned
    /// numbers (parted rounds to its units unless every figure carries an `s`).
    /// --no-reread and --no-tell-kernel let it write while another partition of the
    /// disk is mounted; partx tells the kernel afterwards.
    static func partitionStep(_ target: StepTarget, to planned: SectorRange) -> ResizeStep {
        let entry = target.partition
        let script = shellQuoted("start=\(planned.start), size=\(planned.sectors)")
        return ResizeStep(
            tableHolds(target, start: entry.start, sectors: entry.size) + " && echo \(script) | "
                + "sfdisk --no-reread --no-tell-kernel -N \(entry.number) \(shellQuoted(target.disk))",
            "shrinks partition \(entry.number) to sectors \(planned.start)-\(planned.end) "
                + "(\(ByteSize.format(planned.bytes)), \(planned.bytes) bytes), only if the table is still as checked"
        )
    }

    /// Appends the new partition at exactly `range`: `--append` never changes an existing
    /// partition and fails if the sectors are in use, so a changed table stops it.
    static func creationStep(_ disk: String, _ range: SectorRange, after shrunk: StepTarget?) -> ResizeStep {
        let script = shellQuoted("start=\(range.start), size=\(range.sectors), type=L")
        return ResizeStep(
            "echo \(script) | sfdisk --no-reread --no-tell-kernel --append \(shellQuoted(disk))",
            "creates the new partition at sectors \(range.start)-\(range.end) (\(ByteSize.format(range.bytes)), "
                + "\(range.start * range.sectorSize % (1 << 20) == 0 ? "aligned to 1 MiB" : "as planned"), type Linux filesystem); "
                + "sfdisk refuses if those sectors are in use. No filesystem is made on it: that is your choice"
        )
    }

    /// partx updates, adds and removes the kernel's partitions one by one, so it works
    /// while another partition of the disk is mounted (a whole-table reread would not).
    static func tellKernel(_ disk: String) -> ResizeStep {
        ResizeStep(
            "partx -u \(shellQuoted(disk))",
            "tells the kernel the new table, partition by partition (works while other partitions are mounted)")
    }

    /// A new partition in a free gap: the report's device is the disk.
    static func gapDisk(_ report: CheckReport) -> String? {
        if case .newPartition = report.operation { return report.device }
        return nil
    }

    /// `text` with the characters a basic regular expression gives meaning escaped.
    static func basicRegexEscaped(_ text: String) -> String {
        var result = ""
        for character in text {
            if "\\.[]*^$".contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }
}
