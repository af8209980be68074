import CarveCore

/// What `delete` and `thin` share around the Core `DeletionSession`: the root check,
/// the plan on a scan progress line, the prompt, progress bar and audit lines as the
/// session's hooks, and the report with the exit status the outcome calls for.
struct DeletionFlow {
    let options: DeletionOptions
    let services: Services
    let deletion: DeletionServices

    /// Checks root first (exit 77 before anything), then the shared options.
    init(options: DeletionOptions) throws {
        self.options = options
        services = options.report.shaped(Services.current)
        deletion = DeletionServices.current
        guard services.isRoot else { throw NeedsRootError("deleting snapshots") }
        try options.check()
    }

    var output: any OutputSink { services.output }

    /// The options' rules, with the processes that may hold a snapshot looked for.
    var rules: DeletionRules {
        var rules = options.rules
        rules.holders = services.holders
        return rules
    }

    /// Runs the session on the plan `planning` computes, then reports.
    func run(planning: () throws -> DeletionPlan) throws {
        let started = services.clock.now
        if !options.rules.ignoreInUse { services.holders?.prefetch() }
        let plan = try ScanProgressLine.around(services) { try planning() }.limited(to: options.maxCount)
        for note in plan.notes { output.note(note) }
        let session = DeletionSession(
            backend: services.snapshots, lock: deletion.lock, lockTimeout: options.lockTimeout, rules: rules,
            dryRun: options.dryRun, wait: options.wait, owners: services.owners)
        let progress = ProgressBar(output: output, enabled: services.stderrIsTerminal, total: plan.toDelete.count)
        let result = try session.run(plan, hooks: hooks(progress))
        var view = DeletionReportView(plan: result.plan, dryRun: options.dryRun)
        view.bytes = options.bytes
        view.report = result.report
        view.measuredReclaim = result.measuredReclaim
        view.availableAfter = result.availableAfter
        view.started = started
        view.finished = services.clock.now
        try finish(view)
    }

    /// `--dry-run --pinned`: what only the snapshots to delete hold, per filesystem, read
    /// with the plan's extent maps (scanned here when the plan used quota sizes).
    private func pinnedSets(_ view: DeletionReportView) throws -> [PinnedSet]? {
        guard options.pinned, view.dryRun else { return nil }
        return try ScanProgressLine.around(services) {
            try PinnedSet.sets(of: view.plan.toDelete, exact: view.plan.exactSizes, reader: services.backends)
        }
    }

    private func hooks(_ progress: ProgressBar) -> DeletionSession.Hooks {
        let (output, options, deletion, services) = (output, options, deletion, services)
        // Read once: an option's property wrapper costs a lookup on every access.
        let syslog = options.syslog
        return DeletionSession.Hooks(
            note: { output.note($0) },
            confirm: { plan in
                // The table is for a person about to answer; with --yes the audit trail lists each snapshot.
                var view = DeletionReportView(plan: plan, dryRun: false)
                view.bytes = options.bytes
                // A prompt needs its plan, even under --quiet.
                if !options.json {
                    if options.yes {
                        output.writeError(view.planText(table: false))
                    } else {
                        output.writeEssential(view.planText(table: true))
                    }
                }
                return try Confirmation.confirm(
                    count: plan.toDelete.count, estimate: plan.estimatedReclaim, yes: options.yes, services: services,
                    deletion: deletion)
            },
            catchInterrupts: { flag in
                deletion.catchInterrupts(flag) {
                    output.writeEssential("\ncarve: interrupted: stopping after the snapshot being deleted\n")
                }
            },
            outcome: { outcome, index, _ in
                progress.advance(to: index)
                for line in AuditTrail.lines(for: outcome) { progress.line(line, essential: !outcome.isDone) }
                if outcome.isDone, syslog { deletion.systemLog(AuditTrail.syslogLine(for: outcome)) }
            },
            deleted: { progress.finish() },
            waiting: { count in
                if !options.json { output.note("waiting for btrfs to free the space of \(count) deleted snapshots…") }
            })
    }

    /// Prints the result on stdout (and the plan, for a dry run) and ends with the exit status.
    private func finish(_ view: DeletionReportView) throws {
        let pinned = try pinnedSets(view)
        if options.json {
            output.line(view.json(pinned: pinned).rendered())
        } else if !options.report.quiet {
            if view.dryRun || view.plan.toDelete.isEmpty { output.write(view.planText()) }
            if let pinned, !pinned.isEmpty {
                output.write("Files only the snapshots to delete hold:\n" + PinnedFilesView().text(pinned))
            }
            output.line(view.summaryText())
        }
        let status =
            view.report?.exitStatus(protectedFailures: view.plan.protectedCountingAsFailed)
            ?? (view.plan.protectedCountingAsFailed > 0 && !view.dryRun ? .failure : .success)
        if status != .success { throw CommandExit(status) }
    }
}
