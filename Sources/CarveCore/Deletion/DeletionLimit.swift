extension DeletionPlan {
    /// `--max-count N`: the first `count` snapshots of the plan (oldest first; thin: in
    /// its order), so a timer with thousands overdue spreads the cleaner's work over
    /// runs. Says on stderr how many are left for a later run.
    public func limited(to count: Int?) -> DeletionPlan {
        guard let count else { return self }
        var plan = self
        plan.goal?.limit = count
        guard toDelete.count > count else { return plan }
        let left = toDelete.count - count
        plan.toDelete = Array(toDelete.prefix(count))
        plan.notes.append(
            "--max-count \(count): \(left) more \(left == 1 ? "snapshot is" : "snapshots are") left for a later run")
        return plan
    }
}

/// `--max-count N`: at least one deletion, or the run does nothing on purpose.
public enum DeletionLimit {
    public static func check(_ count: Int?) throws(UsageError) {
        guard let count, count < 1 else { return }
        throw UsageError("invalid value '\(count)' for --max-count: give 1 or more deletions")
    }
}
