/// Which snapshots thin gives up first, as tmutil's urgency: oldest by default,
/// largest when space is needed most with the fewest deletions.
public enum ThinOrder: String, Sendable, CaseIterable {
    case oldest, largest
}

/// Why thin will not delete anything.
public enum ThinRefusal: ReportableError, Equatable {
    /// Some eligible snapshot has no known size: carve does not delete on a guess.
    case sizesUnknown(filesystem: String, note: String?)
    /// Deleting every eligible snapshot would still free less than asked.
    case notEnough(filesystem: String, eligible: Int, estimate: UInt64, target: UInt64)
    /// Nothing on the filesystem may be deleted.
    case nothingEligible(filesystem: String, target: UInt64)
    /// `--until-available`: even every eligible snapshot leaves less available than asked.
    case targetUnreachable(
        filesystem: String, eligible: Int, available: UInt64, expected: UInt64, target: String, shortfall: UInt64)
    /// A refusal whose snapshots were kept because carve could not see who holds them:
    /// the refusal, then why.
    indirect case unseenHolders(ThinRefusal, because: String)

    public var message: String {
        switch self {
        case .sizesUnknown(let filesystem, let note):
            "cannot estimate what deleting snapshots on \(filesystem) frees: "
                + (note.map { "\($0); " } ?? "snapshot sizes are unknown; ")
                + "--sizes exact reads them from the extent trees without quotas (as root); "
                + "nothing deleted"
        case .notEnough(let filesystem, let eligible, let estimate, let target):
            "deleting all \(eligible) eligible snapshots on \(filesystem) frees at least "
                + "\(ByteSize.format(estimate)), less than the \(ByteSize.format(target)) asked for; "
                + "nothing deleted (--best-effort deletes them anyway)"
        case .nothingEligible(let filesystem, let target):
            "no snapshot on \(filesystem) may be deleted to free \(ByteSize.format(target)); nothing deleted"
        case .targetUnreachable(let filesystem, let eligible, let available, let expected, let target, let shortfall):
            "\(ByteSize.format(available)) available on \(filesystem); "
                + (eligible == 0
                    ? "no snapshot may be deleted"
                    : "deleting all \(eligible) eligible snapshots would leave about \(ByteSize.format(expected))")
                + " available, \(ByteSize.format(shortfall)) short of the \(target) asked for; nothing deleted"
                + (eligible == 0 ? "" : " (--best-effort deletes them anyway)")
        case .unseenHolders(let refusal, let because): "\(refusal.message); \(because)"
        }
    }

    public var exitStatus: ExitStatus { .failure }
}

/// Chooses the snapshots `thin` deletes: in `order`, until the estimated reclaim
/// (a lower bound from quota exclusive bytes) reaches the target.
public struct ThinPlanner: Sendable {
    public var target: UInt64
    public var order: ThinOrder
    public var bestEffort: Bool

    public init(target: UInt64, order: ThinOrder = .oldest, bestEffort: Bool = false) {
        self.target = target; self.order = order; self.bestEffort = bestEffort
    }

    /// `eligible` are the selected snapshots the safety rules allow; the result is
    /// what to delete, in deletion order. `sizeNote` says why sizes are unknown.
    public func choose(
        from eligible: [PlannedSnapshot], filesystem: String, sizeNote: String? = nil
    ) throws(ThinRefusal) -> [PlannedSnapshot] {
        guard !eligible.isEmpty else { throw .nothingEligible(filesystem: filesystem, target: target) }
        guard let everything = DeletionPlan.exclusiveSum(eligible) else {
            throw .sizesUnknown(filesystem: filesystem, note: sizeNote)
        }
        let ordered = sorted(eligible)
        if everything < target {
            guard bestEffort else {
                throw .notEnough(filesystem: filesystem, eligible: eligible.count, estimate: everything, target: target)
            }
            return ordered
        }
        var chosen: [PlannedSnapshot] = []
        var estimate: UInt64 = 0
        for snapshot in ordered where estimate < target {
            chosen.append(snapshot)
            estimate += snapshot.subvolume.exclusive ?? 0
        }
        return chosen
    }

    func sorted(_ snapshots: [PlannedSnapshot]) -> [PlannedSnapshot] {
        switch order {
        case .oldest:
            return snapshots.sorted(by: olderFirst)
        case .largest:
            return snapshots.sorted { a, b in
                let (sizeA, sizeB) = (a.subvolume.exclusive ?? 0, b.subvolume.exclusive ?? 0)
                return sizeA != sizeB ? sizeA > sizeB : olderFirst(a, b)
            }
        }
    }
}
