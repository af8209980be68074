extension ThinRequest {
    /// `thin PATH --until-available SIZE|N%`: parses the target; `--free` is not given.
    public init(
        path: String, untilAvailable: String, selection: SnapshotSelection, order: ThinOrder, bestEffort: Bool
    ) throws(UsageError) {
        self.path = path; self.target = 0; self.selection = selection; self.order = order
        self.bestEffort = bestEffort
        availability = try AvailabilityTarget.parse(untilAvailable)
    }

    /// Reads the filesystem's space first: when the target holds already, nothing is
    /// listed or scanned and the plan is empty. Else the selected snapshots the rules
    /// allow, in thin's order, until what they free is expected to bring the available
    /// space up to the target (see `AvailabilityGoal.plan`).
    func plan(
        until availability: AvailabilityTarget, backend: any SnapshotBackend, rules: DeletionRules, now: Date
    ) throws -> DeletionPlan {
        let filesystem = try backend.filesystem(named: SnapshotResolver.commandLine(path, backend: backend))
        let space = try backend.spaceUsage(of: filesystem)
        guard space.size > 0 else {
            throw RuntimeError("cannot read the size of \(filesystem.mountpoint): statfs reports 0 blocks")
        }
        var goal = AvailabilityGoal(
            filesystem: filesystem,
            target: try availability.bytes(ofSize: space.size, filesystem: filesystem.mountpoint),
            asked: availability.text, space: space, eligible: [], exact: nil)
        guard goal.shortfall(available: space.available) > 0 else {
            var plan = DeletionPlan(toDelete: [])
            plan.goal = goal
            return plan
        }
        let (listing, outcome, allowed) = try selected(backend: backend, rules: rules, now: now)
        goal.eligible = ThinPlanner(target: goal.target, order: order).sorted(allowed.toDelete)
        goal.exact = listing.exact
        var plan = DeletionPlan(
            toDelete: try allowed.explainingRefusal {
                try goal.plan(bestEffort: bestEffort, sizeNote: listing.sizeNote)
            },
            protected: allowed.protected,
            notes: Self.notes(listing, outcome))
        if goal.everything < goal.shortfall(available: space.available) {
            plan.notes.append("--best-effort: deleting every eligible snapshot leaves less available than asked for")
        }
        plan.finish(from: [listing], kept: DeletionPlan.keptByRetention(outcome, in: listing))
        plan.goal = goal
        return plan
    }
}
