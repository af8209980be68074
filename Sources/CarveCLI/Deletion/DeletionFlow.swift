import CarveCore
import Foundation

/// The flow `delete` and `thin` share: root check, plan, print, confirm, lock,
/// delete one after another with progress and an audit line each, wait for the
/// cleaner, report, and end with the exit status the outcome calls for.
struct DeletionFlow {
    let options: DeletionOptions
    let services: Services
    let deletion: DeletionServices

    /// Checks root first (exit 77 before anything), then the shared options.
    init(options: DeletionOptions) throws {
        self.options = options
        services = Services.current
        deletion = DeletionServices.current
        guard services.isRoot else { throw NeedsRootError("deleting snapshots") }
        try options.check()
    }

    var output: any OutputSink { services.output }

    /// Runs the flow on the plan `planning` computes. The lock is taken once the
    /// plan is confirmed, so a prompt left open never blocks a backup job; each
    /// snapshot is checked again right before its deletion anyway.
    func run(planning: () throws -> DeletionPlan) throws {
        let plan = try ScanProgressLine.around(services) { try planning() }
        for note in plan.notes { output.note(note) }
        var view = DeletionReportView(plan: plan, dryRun: options.dryRun)
        if options.dryRun || plan.toDelete.isEmpty {
            finishInterruptedWithoutPlan(plan)
            return try finish(view)
        }
        // The table is for a person about to answer; with --yes the audit trail lists each snapshot.
        if !options.json { output.writeError(view.planText(table: !options.yes)) }
        try Confirmation.confirm(
            count: plan.toDelete.count, estimate: plan.estimatedReclaim, yes: options.yes, services: services,
            deletion: deletion)
        let holder = try deletion.lock.acquire(timeout: options.lockTimeout)
        defer { holder.release() }
        finishInterrupted(plan)
        let before = options.wait ? try usage(of: plan) : nil
        let report = execute(plan)
        view.report = report
        if let before, !report.interrupted {
            try waitForCleanup(report)
            view.measuredReclaim = Int64(clamping: before) - Int64(clamping: try usage(of: plan))
        }
        try finish(view)
    }

    /// Finishes what killed runs left on the plan's filesystems, first thing under the
    /// lock: the lock means no marker seen belongs to a live run, and the leftovers
    /// are finished even when this run is then interrupted or fails.
    private func finishInterrupted(_ plan: DeletionPlan) {
        let report = InterruptedDeletionSweep(backend: services.snapshots, dryRun: false).run(plan.interruptedScopes)
        for line in report.lines { output.note(line) }
    }

    /// A dry run says what it would finish. A run with nothing to delete still
    /// finishes the leftovers it finds, taking the lock only then; when another carve
    /// holds it, they are left for a later run.
    private func finishInterruptedWithoutPlan(_ plan: DeletionPlan) {
        let found = InterruptedDeletionSweep(backend: services.snapshots, dryRun: true).run(plan.interruptedScopes)
        guard !options.dryRun, found.hasWork else {
            for line in found.lines { output.note(line) }
            return
        }
        let holder: any LockHolder
        do {
            holder = try deletion.lock.acquire(timeout: options.lockTimeout)
        } catch {
            let why = error is LockedError ? "another carve holds the lock" : "warning: \(InterruptedDeletionSweep.reason(error))"
            output.note("\(why): what interrupted runs left is finished by a later run")
            return
        }
        defer { holder.release() }
        finishInterrupted(plan)
    }

    private func execute(_ plan: DeletionPlan) -> DeletionReport {
        let flag = CancellationFlag()
        let progress = ProgressBar(output: output, enabled: services.stderrIsTerminal, total: plan.toDelete.count)
        deletion.catchInterrupts(flag) { [output] in
            output.writeError("\ncarve: interrupted: stopping after the snapshot being deleted\n")
        }
        let executor = DeletionExecutor(deleter: SnapshotDeleter(backend: services.snapshots, rules: options.rules), cancellation: flag)
        // Read once: an option's property wrapper costs a lookup on every access.
        let syslog = options.syslog
        let report = executor.run(plan.toDelete) { outcome, index, _ in
            progress.advance(to: index)
            for line in AuditTrail.lines(for: outcome) { progress.line(line) }
            if outcome.isDone, syslog { deletion.systemLog(AuditTrail.syslogLine(for: outcome)) }
        }
        progress.finish()
        return report
    }

    /// Prints the result on stdout (and the plan, for a dry run) and ends with the exit status.
    private func finish(_ view: DeletionReportView) throws {
        if options.json {
            output.line(view.json().rendered())
        } else {
            if view.dryRun || view.plan.toDelete.isEmpty { output.write(view.planText()) }
            output.line(view.summaryText())
        }
        let status = view.report?.exitStatus(namedProtected: view.plan.namedProtectedCount)
            ?? (view.plan.namedProtectedCount > 0 && !view.dryRun ? .failure : .success)
        if status != .success { throw CommandExit(status) }
    }

    /// Used bytes summed over the filesystems the plan touches.
    private func usage(of plan: DeletionPlan) throws -> UInt64 {
        try filesystems(plan.toDelete).reduce(0) { $0 + (try services.snapshots.spaceUsage(of: $1).used) }
    }

    private func waitForCleanup(_ report: DeletionReport) throws {
        let done = report.done.map(\.snapshot)
        if !options.json { output.note("waiting for btrfs to free the space of \(done.count) deleted snapshots…") }
        for filesystem in filesystems(done) {
            let ids = done.filter { $0.filesystem.uuid == filesystem.uuid }.map(\.subvolume.id)
            try services.snapshots.waitForCleanup(of: ids, on: filesystem)
        }
    }

    private func filesystems(_ snapshots: [PlannedSnapshot]) -> [Filesystem] {
        var seen = Set<String>()
        return snapshots.map(\.filesystem).filter { seen.insert($0.uuid).inserted }
    }
}
