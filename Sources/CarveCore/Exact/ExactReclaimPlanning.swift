extension ThinPlanner {
    /// With exact sizes: the snapshots in `order` until what they free together (set
    /// reclaim, not a sum of single sizes) reaches the target.
    public func choose(
        from eligible: [PlannedSnapshot], filesystem: String, exact: ExactSizes
    ) throws(ThinRefusal) -> [PlannedSnapshot] {
        guard !eligible.isEmpty else { throw .nothingEligible(filesystem: filesystem, target: target) }
        let ordered = sorted(eligible)
        let curve = exact.map.reclaimCurve(deleting: ordered.map(\.subvolume.id))
        let everything = curve.last ?? 0
        guard let enough = curve.firstIndex(where: { $0 >= target }) else {
            guard bestEffort else {
                throw .notEnough(filesystem: filesystem, eligible: eligible.count, estimate: everything, target: target)
            }
            return ordered
        }
        return Array(ordered[...enough])
    }
}

extension DeletionPlan {
    /// Exact data bytes that deleting `snapshots` together frees, summed over their
    /// filesystems; nil unless every filesystem involved was scanned for exact sizes.
    public static func exactReclaim(of snapshots: [PlannedSnapshot], listings: [SubvolumeListing]) -> UInt64? {
        var total: UInt64 = 0
        for uuid in Set(snapshots.map(\.filesystem.uuid)) {
            guard let exact = listings.first(where: { $0.filesystem.uuid == uuid })?.exact else { return nil }
            total += exact.reclaim(deleting: snapshots.filter { $0.filesystem.uuid == uuid }.map(\.subvolume.id)).data
        }
        return total
    }

    /// The scan summaries of the listings that have exact sizes, for stderr.
    public static func exactNotes(_ listings: [SubvolumeListing]) -> [String] {
        listings.compactMap { listing in listing.exact.map { "\(listing.filesystem.mountpoint): \($0.summary)" } }
    }
}
