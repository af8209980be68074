extension SnapshotsInTheWay {
    /// The extent map when the snapshots were scanned for exact sizes (quotas off).
    var exact: ExactSizes? { subject.snapshots?.exact }

    /// What deleting `snapshots` together frees: the exact set reclaim when scanned,
    /// else the sum of their quota exclusive bytes (a lower bound).
    func freed(by snapshots: [Volume]) -> UInt64 {
        guard let exact else { return snapshots.reduce(0) { $0 + ($1.exclusive ?? 0) } }
        return exact.reclaim(deleting: snapshots.map(\.id)).data
    }

    /// Element k: what the first k+1 of `candidates` free together.
    func reclaimCurve(_ candidates: [Volume]) -> [UInt64] {
        if let exact { return exact.map.reclaimCurve(deleting: candidates.map(\.id)) }
        var running: UInt64 = 0
        return candidates.map {
            running += $0.exclusive ?? 0; return running
        }
    }

    /// The option a thin command needs to see the same sizes.
    var sizesOption: String { exact == nil ? "" : " --sizes exact" }
}
