/// A delete or thin run, in the order the safety rules need: plan; then, unless it is a
/// dry run or nothing is to go, confirm (through the caller), take the lock, finish what
/// killed runs left, delete one snapshot after another (each checked against the rules
/// right before it goes), and with `wait` wait for the space. The lock is taken once the plan is confirmed, so a prompt left open never
/// blocks a backup job; each snapshot is checked again right before its deletion anyway.
/// The command supplies the hooks (prompt, progress, audit) and renders the result.
public struct DeletionSession {
    /// What the session tells and asks the command.
    public struct Hooks {
        /// A line for stderr: what the sweep finished, that it waits for the cleaner.
        public var note: (String) -> Void
        /// Asks before anything is deleted (or refuses); throws to stop the run. True when
        /// it waited for an answer: who holds what is then read afresh.
        public var confirm: (DeletionPlan) throws -> Bool
        /// Starts turning signals into the flag; the run stops after the snapshot in hand.
        public var catchInterrupts: (CancellationFlag) -> Void
        /// Hears each snapshot's outcome, with its position and the total.
        public var outcome: (DeletionOutcome, _ index: Int, _ total: Int) -> Void
        /// The deletions are over (a progress bar ends here).
        public var deleted: () -> Void
        /// With `wait`: the run now waits for the space of this many deleted snapshots.
        public var waiting: (Int) -> Void

        public init(
            note: @escaping (String) -> Void, confirm: @escaping (DeletionPlan) throws -> Bool,
            catchInterrupts: @escaping (CancellationFlag) -> Void = { _ in },
            outcome: @escaping (DeletionOutcome, Int, Int) -> Void = { _, _, _ in }, deleted: @escaping () -> Void = {},
            waiting: @escaping (Int) -> Void = { _ in }
        ) {
            self.note = note; self.confirm = confirm; self.catchInterrupts = catchInterrupts
            self.outcome = outcome; self.deleted = deleted; self.waiting = waiting
        }
    }

    /// What the run did.
    public struct Result {
        public var plan: DeletionPlan
        /// nil for a dry run, or when nothing was to be deleted.
        public var report: DeletionReport?
        /// With `wait`: bytes the filesystems' used space shrank by.
        public var measuredReclaim: Int64?
        /// `--until-available` with `wait`: the available bytes read after the last batch.
        public var availableAfter: UInt64?
    }

    public var backend: any SnapshotBackend
    /// What the owners keep beside their snapshots (markers, metadata).
    public var owners: any OwnerHousekeeping
    public var lock: any DeletionLock
    public var lockTimeout: Double
    public var rules: DeletionRules
    public var dryRun: Bool
    public var wait: Bool

    public init(
        backend: any SnapshotBackend, lock: any DeletionLock, lockTimeout: Double, rules: DeletionRules, dryRun: Bool,
        wait: Bool, owners: (any OwnerHousekeeping)? = nil
    ) {
        self.backend = backend
        self.owners = owners ?? (backend as? any OwnerHousekeeping) ?? NoOwnerHousekeeping()
        self.lock = lock; self.lockTimeout = lockTimeout; self.rules = rules
        self.dryRun = dryRun; self.wait = wait
    }

    public func run(_ plan: DeletionPlan, hooks: Hooks) throws -> Result {
        var result = Result(plan: plan)
        if dryRun || plan.toDelete.isEmpty {
            finishInterruptedWithoutDeleting(plan, hooks)
            return result
        }
        // A prompt may have waited for minutes: a backup may have started reading a
        // snapshot meanwhile (each clone's state is read again at its deletion anyway).
        if try hooks.confirm(plan) { rules.holders?.refresh() }
        let holder = try lock.acquire(timeout: lockTimeout)
        defer { holder.release() }
        finishInterrupted(plan, hooks)
        let before = wait ? try usage(of: plan.toDelete) : nil
        let flag = CancellationFlag()
        hooks.catchInterrupts(flag)
        var report = delete(plan, hooks, flag)
        if let before, !report.interrupted {
            try waitForCleanup(report, hooks)
            if let goal = plan.goal {
                result.availableAfter = try pursue(
                    goal, plan: &result.plan, report: &report, hooks: hooks, cancellation: flag)
            }
            result.measuredReclaim = Int64(clamping: before) - Int64(clamping: try usage(of: plan.toDelete))
        }
        result.report = report
        return result
    }

    /// Finishes what killed runs left on the plan's filesystems, first thing under the
    /// lock: the lock means no marker seen belongs to a live run, and the leftovers are
    /// finished even when this run is then interrupted or fails.
    private func finishInterrupted(_ plan: DeletionPlan, _ hooks: Hooks) {
        let report = InterruptedDeletionSweep(owners: owners, dryRun: false).run(plan.interruptedScopes)
        for line in report.lines { hooks.note(line) }
    }

    /// A dry run says what it would finish. A run with nothing to delete still finishes
    /// the leftovers it finds, taking the lock only then; when another carve holds it,
    /// they are left for a later run.
    private func finishInterruptedWithoutDeleting(_ plan: DeletionPlan, _ hooks: Hooks) {
        let found = InterruptedDeletionSweep(owners: owners, dryRun: true).run(plan.interruptedScopes)
        guard !dryRun, found.hasWork else {
            for line in found.lines { hooks.note(line) }
            return
        }
        let holder: any LockHolder
        do {
            holder = try lock.acquire(timeout: lockTimeout)
        } catch {
            let why =
                error is LockedError
                ? "another carve holds the lock" : "warning: \(InterruptedDeletionSweep.reason(error))"
            hooks.note("\(why): what interrupted runs left is finished by a later run")
            return
        }
        defer { holder.release() }
        finishInterrupted(plan, hooks)
    }

    /// Deletes the snapshots one after another (a batch at a time where one call deletes
    /// several), going on past failures; a signal stops the run between two. `flag` is the
    /// run's one cancellation flag: a signal while waiting between two batches of
    /// `--until-available` still stops the run.
    func delete(_ plan: DeletionPlan, _ hooks: Hooks, _ flag: CancellationFlag) -> DeletionReport {
        let deleter = SnapshotDeleter(backend: backend, rules: rules, owners: owners)
        let snapshots = plan.toDelete
        var report = DeletionReport()
        report.outcomes.reserveCapacity(snapshots.count)
        // Snapshots one call deletes together (a ZFS dataset's) go as one batch: see
        // `SnapshotDeleter.batch`. `taken`: tried already, in this batch or an earlier one.
        var taken = [Bool](repeating: false, count: snapshots.count)
        var head = 0
        while head < snapshots.count {
            if taken[head] {
                head += 1
                continue
            }
            if flag.isCancelled {
                report.interrupted = true
                report.notAttempted = snapshots.indices.filter { $0 >= head && !taken[$0] }.map { snapshots[$0] }
                break
            }
            let batch = deleter.batch(of: snapshots, from: head, skipping: taken)
            for position in batch { taken[position] = true }
            if batch.count == 1 {
                // One snapshot (every btrfs one): no array of one made for it, nor for its outcome.
                report.outcomes.append(deleter.delete(snapshots[head]))
                hooks.outcome(report.outcomes[report.outcomes.count - 1], report.outcomes.count, snapshots.count)
                continue
            }
            for outcome in deleter.delete(batch: batch.map { snapshots[$0] }) {
                report.outcomes.append(outcome)
                hooks.outcome(outcome, report.outcomes.count, snapshots.count)
            }
        }
        // A signal during the last deletion still interrupts the run as the user asked.
        if flag.isCancelled { report.interrupted = true }
        hooks.deleted()
        return report
    }

    /// Used bytes summed over the filesystems the snapshots are on.
    private func usage(of snapshots: [PlannedSnapshot]) throws -> UInt64 {
        try filesystems(snapshots).reduce(0) { $0 + (try backend.spaceUsage(of: $1).used) }
    }

    func waitForCleanup(_ report: DeletionReport, _ hooks: Hooks) throws {
        let done = report.done.map(\.snapshot)
        hooks.waiting(done.count)
        for filesystem in filesystems(done) {
            let ids = done.filter { $0.filesystem.uuid == filesystem.uuid }.map(\.subvolume.id)
            try backend.waitForCleanup(of: ids, on: filesystem)
        }
    }

    private func filesystems(_ snapshots: [PlannedSnapshot]) -> [Filesystem] {
        var seen = Set<String>()
        return snapshots.map(\.filesystem).filter { seen.insert($0.uuid).inserted }
    }
}
