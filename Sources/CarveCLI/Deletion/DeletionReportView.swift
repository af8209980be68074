import CarveCore

/// What a delete or thin run prints: the plan as a table, and the result as one
/// summary line or the JSON object scripts read.
struct DeletionReportView {
    var plan: DeletionPlan
    var dryRun: Bool
    /// nil for a dry run, or when nothing was to be deleted.
    var report: DeletionReport?
    /// Measured with --wait: bytes the filesystems' used space shrank by.
    var measuredReclaim: Int64?
    /// `thin --until-available --wait`: the available bytes read after the last batch.
    var availableAfter: UInt64?
    /// When the run began (before planning) and ended, for the JSON report.
    var started: Date?
    var finished: Date?
    /// `--bytes`: sizes as exact byte counts rather than `12.3G`.
    var bytes = false

    /// A size as the run prints it.
    func size(_ value: UInt64) -> String { bytes ? "\(value)" : ByteSize.format(value) }

    /// The snapshots that are gone (or, in a dry run, would be).
    var deleted: [PlannedSnapshot] { report.map { $0.done.map(\.snapshot) } ?? (dryRun ? plan.toDelete : []) }

    /// The estimate for what is gone: a lower bound from quota exclusive bytes.
    var estimatedReclaim: UInt64? {
        // Without exact sizes, one deleted snapshot of unknown size leaves no estimate:
        // known before the list of what is gone is copied together.
        if plan.exactSizes.isEmpty, !deletedHaveSizes { return nil }
        let deleted = deleted
        return plan.measuredReclaim(of: deleted) ?? plan.exactReclaim(of: deleted) ?? DeletionPlan.exclusiveSum(deleted)
    }

    private var deletedHaveSizes: Bool {
        if let report { return report.outcomes.allSatisfy { !$0.isDone || $0.snapshot.subvolume.exclusive != nil } }
        return !dryRun || plan.toDelete.allSatisfy { $0.subvolume.exclusive != nil }
    }

    // MARK: text

    /// The plan: what will be deleted and what is protected, with why.
    /// `table: false` gives the first line alone, without the snapshot table.
    func planText(table showTable: Bool = true) -> String {
        var out = ""
        if !plan.toDelete.isEmpty {
            let verb = dryRun ? "Would delete" : "Deleting"
            out +=
                "\(verb) \(count(plan.toDelete.count))\(estimateText(plan.estimatedReclaim))\(showTable ? ":" : "")\n"
        }
        if !plan.toDelete.isEmpty && showTable {
            var table = TextTable(
                headers: ["ID", "CREATED", "MANAGER", "NUMBER", "PATH", "EXCL"],
                rightAligned: [true, false, false, true, false, true])
            let zone = Services.current.clock.timeZone
            table.rows = plan.toDelete.map { snapshot in
                let subvolume = snapshot.subvolume
                return [
                    "\(subvolume.id)", DateText.short(subvolume.created, timeZone: zone),
                    subvolume.metadata.manager.rawValue,
                    Self.number(subvolume.metadata), escapedForTable(snapshot.displayPath),
                    subvolume.exclusive.map(size) ?? "-",
                ]
            }
            out += table.rendered()
        }
        if dryRun && !plan.kept.isEmpty {
            out += "Kept by the retention rules:\n"
            for entry in plan.kept {
                let reasons = entry.keptBy.map(\.description).joined(separator: ", ")
                out += "  \(entry.snapshot.subvolume.id) \(escapedForTable(entry.snapshot.displayPath)): \(reasons)\n"
            }
        }
        if !plan.protected.isEmpty {
            out += "Protected, not deleted:\n"
            for entry in plan.protected {
                out +=
                    "  \(entry.snapshot.subvolume.id) \(escapedForTable(entry.snapshot.displayPath)): \(entry.reason)\n"
            }
        }
        return out
    }

    /// The result in one line, for stdout.
    func summaryText() -> String {
        if let goal = plan.goal, goal.shortfall(available: goal.availableBefore) == 0 { return goal.metText }
        if plan.toDelete.isEmpty {
            return plan.protected.isEmpty
                ? "no snapshots matched"
                : "nothing deleted: \(plan.protected.count) selected \(plan.protected.count == 1 ? "snapshot is" : "snapshots are") protected"
        }
        if dryRun {
            return
                "dry run: would delete \(count(plan.toDelete.count))\(estimateText(plan.estimatedReclaim)); nothing deleted"
        }
        guard let report else { return "nothing deleted" }
        var parts = ["deleted \(count(report.doneCount))\(estimateText(estimatedReclaim))"]
        if let measuredReclaim { parts[0] += " (measured: \(signed(measuredReclaim)))" }
        let failed = report.notDoneCount
        if failed > 0 { parts.append("\(failed) failed") }
        if !plan.protected.isEmpty { parts.append("\(plan.protected.count) protected") }
        if report.interrupted { parts.append("interrupted, \(report.notAttempted.count) not attempted") }
        if let goal = plan.goal, let availableAfter {
            parts.append("\(size(availableAfter)) available, \(goal.targetText) asked for")
        }
        return parts.joined(separator: ", ")
    }

    private func count(_ n: Int) -> String { "\(n) snapshot\(n == 1 ? "" : "s")" }

    private func estimateText(_ bytes: UInt64?) -> String {
        guard let bytes else { return plan.sizesSkipped ? "" : " (space freed unknown: no quota sizes)" }
        return ", freeing at least \(size(bytes))"
    }

    func signed(_ value: Int64) -> String {
        value < 0 ? "-" + size(UInt64(-value)) : size(UInt64(value))
    }

    static func number(_ metadata: ManagerMetadata) -> String {
        if let number = metadata.number { return "\(metadata.config.map { $0 + ":" } ?? "")\(number)" }
        return metadata.name ?? "-"
    }

    // MARK: JSON

    /// The object `snapshots list --json` prints for the same snapshot.
    static func snapshotJSON(_ snapshot: PlannedSnapshot) -> JSONValue {
        var subvolumes = [snapshot.subvolume]
        // The row shows the source by its mounted path, which it looks up in the listing.
        if let id = snapshot.subvolume.sourceID, let path = snapshot.subvolume.sourcePath {
            subvolumes.append(
                Volume(
                    id: id, path: path, mountedPath: snapshot.filesystem.mountedPath(ofTopLevelPath: path), uuid: "",
                    created: snapshot.subvolume.created, isSnapshot: false))
        }
        let listing = VolumeListing(filesystem: snapshot.filesystem, subvolumes: subvolumes, sizes: .none)
        return SnapshotColumns.snapshotJSON(
            SnapshotRow(snapshot.subvolume, in: listing, timeZone: Services.current.clock.timeZone))
    }

    /// The JSON report, with `"pinned"` (as `snapshots pinned --json` has it) after `--pinned`.
    func json(pinned: [PinnedSet]?) -> JSONValue {
        guard let pinned, case .object(let members) = json() else { return json() }
        return .object(members + [("pinned", .object([PinnedFilesView().json(pinned)]))])
    }

    func json() -> JSONValue {
        let failed: [JSONValue] = (report?.notDone ?? []).map { outcome in
            .object([
                ("path", .string(outcome.snapshot.displayPath)), ("id", .uint(outcome.snapshot.subvolume.id)),
                ("error", .string(outcome.errorText ?? "")),
            ])
        }
        let kept: [JSONValue] = plan.kept.map { entry in
            .object([
                ("path", .string(entry.snapshot.displayPath)), ("id", .uint(entry.snapshot.subvolume.id)),
                ("kept_by", .array(entry.keptBy.map { .string($0.description) })),
            ])
        }
        let protected: [JSONValue] = plan.protected.map { entry in
            .object([
                ("path", .string(entry.snapshot.displayPath)), ("id", .uint(entry.snapshot.subvolume.id)),
                ("reason", .string(entry.reason)),
            ])
        }
        let unseen: [JSONValue] = plan.unseenProcesses.map { unseen in
            .object([
                ("cause", .string(unseen.cause)),
                (
                    "processes",
                    .array(
                        unseen.processes.map {
                            .object([("pid", .int(Int64($0.pid))), ("command", .string($0.command))])
                        })
                ),
            ])
        }
        let utc = TimeZone(secondsFromGMT: 0)!
        return .document(
            [
                ("started", started.map { .string(DateText.iso8601($0, timeZone: utc)) } ?? .null),
                ("finished", finished.map { .string(DateText.iso8601($0, timeZone: utc)) } ?? .null),
                ("dry_run", .bool(dryRun)),
                ("deleted", .array(deleted.map(Self.snapshotJSON))),
                ("failed", .array(failed)),
                ("protected", .array(protected)),
                ("unseen_processes", .array(unseen)),
                ("kept", .array(kept)),
                ("estimated_reclaim", .uint(estimatedReclaim)),
                ("measured_reclaim", measuredReclaim.map { .int($0) } ?? .null),
                ("interrupted", .bool(report?.interrupted ?? false)),
            ] + (plan.goal.map { [("until_available", goalJSON($0))] } ?? []))
    }

    /// `"until_available"`: the target and the available figures around the run.
    private func goalJSON(_ goal: AvailabilityGoal) -> JSONValue {
        .object([
            ("asked", .string(goal.asked)), ("target", .uint(goal.target)), ("size", .uint(goal.size)),
            ("available_before", .uint(goal.availableBefore)),
            ("available_after", availableAfter.map { .uint($0) } ?? .null),
            ("met_before", .bool(goal.shortfall(available: goal.availableBefore) == 0)),
            ("met_after", availableAfter.map { .bool(goal.shortfall(available: $0) == 0) } ?? .null),
        ])
    }
}
