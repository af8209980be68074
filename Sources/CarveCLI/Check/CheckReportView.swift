import CarveCore

/// `carve check`'s report, as text for people and as JSON for scripts.
enum CheckReportView {
    static func json(_ report: CheckReport) -> JSONValue {
        .document([
            ("device", .string(report.device)),
            ("filesystem", .string(report.filesystem)),
            ("operation", .string(report.operation.name)),
            ("current_size", .uint(report.currentSize)),
            ("target_size", report.operation == .remove ? .null : .uint(report.targetSize)),
            ("minimum_size", .uint(report.minimumSize)),
            ("minimum_size_without_snapshots", .uint(report.minimumSizeWithoutSnapshots)),
            ("verdict", .string(report.verdict.rawValue)),
            (
                "blockers",
                .array(
                    report.blockers.map { blocker in
                        .object([
                            ("kind", .string(blocker.kind.rawValue)), ("bytes", .uint(blocker.bytes)),
                            ("detail", .string(blocker.detail)),
                            (
                                "pinned_files",
                                .array(
                                    blocker.pinnedFiles.map { file in
                                        .object(PinnedColumns.all.map { ($0.key, $0.json(file)) })
                                    })
                            ),
                        ])
                    })
            ),
            (
                "remedies",
                .array(
                    report.remedies.map { remedy in
                        .object([
                            ("command", .string(remedy.command)), ("frees", .uint(remedy.frees)),
                            ("detail", .string(remedy.detail)),
                        ])
                    })
            ),
            (
                "steps",
                .array(
                    report.steps.map { step in
                        .object([("command", .string(step.command)), ("explanation", .string(step.explanation))])
                    })
            ),
            (
                "snapshot_timers",
                .array(
                    report.timers.map { timer in
                        .object([
                            ("name", .string(timer.name)), ("detail", .string(timer.detail)),
                            ("pause", .string(timer.pause)), ("resume", .string(timer.resume)),
                        ])
                    })
            ),
            ("new_partition", report.newPartition.map(range) ?? .null),
            (
                "resized_partition",
                report.shrunkPartition.map { planned in
                    .object([("number", .int(planned.number))] + rangeMembers(planned.range))
                } ?? .null
            ),
            ("notes", .array(report.notes.map(JSONValue.string))),
        ])
    }

    static func range(_ range: SectorRange) -> JSONValue { .object(rangeMembers(range)) }

    /// Sectors, and the size in bytes.
    static func rangeMembers(_ range: SectorRange) -> [(String, JSONValue)] {
        [
            ("start", .uint(range.start)), ("end", .uint(range.end)), ("size", .uint(range.bytes)),
            ("sector_size", .uint(range.sectorSize)),
        ]
    }

    static func text(_ report: CheckReport) -> String {
        var lines = ["\(report.device): \(headline(report)): \(report.verdict.rawValue)"]
        func row(_ name: String, _ value: String) { lines.append("  " + name.padding(28) + value) }
        if let current = report.currentSize { row("current size", size(current)) }
        if report.operation != .remove { row("target size", size(report.targetSize)) }
        if let minimum = report.minimumSize {
            row("minimum size", size(minimum) + (report.minimumSource.map { ", from \($0)" } ?? ""))
        } else if report.filesystem != nil || report.shrunkPartition != nil {
            row("minimum size", "cannot tell")
        }
        if let without = report.minimumSizeWithoutSnapshots, without != report.minimumSize {
            row("minimum without snapshots", size(without))
        }
        if let planned = report.shrunkPartition {
            row("partition \(planned.number.map(String.init) ?? "?") after shrink", sectors(planned.range))
        }
        if let new = report.newPartition { row("new partition", sectors(new)) }
        if !report.blockers.isEmpty {
            lines.append("Blockers:")
            for blocker in report.blockers {
                lines.append(
                    "  \(blocker.kind.rawValue)" + (blocker.bytes.map { " (\(ByteSize.format($0)))" } ?? "")
                        + ": \(blocker.detail)")
                lines += pinnedLines(blocker.pinnedFiles)
            }
        }
        if !report.remedies.isEmpty {
            lines.append("Remedies:")
            for remedy in report.remedies {
                lines.append("  \(remedy.command)")
                lines.append("      " + (remedy.frees.map { "frees \(ByteSize.format($0)): " } ?? "") + remedy.detail)
            }
        }
        lines += timerLines(report.timers)
        if !report.steps.isEmpty {
            lines.append("Steps:")
            for step in report.steps {
                lines.append("  \(step.command)")
                lines.append("      \(step.explanation)")
            }
        }
        if !report.notes.isEmpty {
            lines.append("Notes:")
            lines += report.notes.map { "  \($0)" }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The largest files only the snapshots in the way hold, each by its path through
    /// the snapshot it is named in (`carve snapshots pinned` lists them all).
    static func pinnedLines(_ files: [PinnedFile]) -> [String] {
        guard !files.isEmpty else { return [] }
        let sizes = files.map { ByteSize.format($0.bytes) }
        let width = sizes.map(\.count).max() ?? 0
        return ["      the largest files only they hold:"]
            + zip(sizes, files).map { size, file in
                let path = file.path.map { file.namedIn.path + "/" + $0 } ?? file.displayPath
                return "        " + String(repeating: " ", count: width - size.count) + size + " "
                    + escapedForTable(path)
            }
    }

    /// Each timer with the commands that pause it and resume it, as `tmutil disable`/`enable`.
    static func timerLines(_ timers: [SnapshotTimer]) -> [String] {
        guard !timers.isEmpty else { return [] }
        var lines = ["Snapshot timers (pause them until the repartition is done):"]
        for timer in timers {
            lines += [
                "  \(timer.name): \(timer.detail)", "      pause:  \(timer.pause)", "      resume: \(timer.resume)",
            ]
        }
        return lines
    }

    static func headline(_ report: CheckReport) -> String {
        let type = report.filesystem.map { "\($0), " } ?? ""
        switch report.operation {
        case .shrinkTo(let bytes): return "\(type)shrink to \(ByteSize.format(bytes))"
        case .shrinkBy(let bytes): return "\(type)shrink by \(ByteSize.format(bytes))"
        case .newPartition(let bytes): return "new partition of \(ByteSize.format(bytes))"
        case .remove: return "\(type)remove from its filesystem"
        }
    }

    static func size(_ bytes: UInt64) -> String { "\(ByteSize.format(bytes)) (\(bytes) bytes)" }

    static func sectors(_ range: SectorRange) -> String {
        "sectors \(range.start)-\(range.end), \(size(range.bytes))"
    }
}

extension String {
    /// The string padded with spaces to `width` characters.
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
