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
    public func exactReclaim(of snapshots: [PlannedSnapshot]) -> UInt64? {
        guard !exactSizes.isEmpty else { return nil }
        var total: UInt64 = 0
        for uuid in Set(snapshots.map(\.filesystem.uuid)) {
            guard let exact = exactSizes[uuid] else { return nil }
            total += exact.reclaim(deleting: snapshots.filter { $0.filesystem.uuid == uuid }.map(\.subvolume.id)).data
        }
        return total
    }

    /// The extent maps of the listings scanned for exact sizes, by filesystem UUID.
    public static func exactSizes(_ listings: [VolumeListing]) -> [String: ExactSizes] {
        var maps: [String: ExactSizes] = [:]
        for listing in listings { if let exact = listing.exact { maps[listing.filesystem.uuid] = exact } }
        return maps
    }

    /// The scan summaries of the listings that have exact sizes, for stderr.
    public static func exactNotes(_ listings: [VolumeListing]) -> [String] {
        let options = ExactScanOptions.current
        var notes: [String] = []
        for listing in listings {
            guard let exact = listing.exact, options.showsSummary(of: exact) else { continue }
            notes += exact.notes + ["\(listing.filesystem.mountpoint): \(exact.summary)"]
        }
        return notes
    }
}
