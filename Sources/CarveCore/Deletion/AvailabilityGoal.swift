/// `thin --until-available`: what the run aims for on one filesystem, and the eligible
/// snapshots in thin's order, so that with `--wait` the session can read the real
/// available figure after each batch and plan the next one from it.
public struct AvailabilityGoal: Sendable {
    public var filesystem: Filesystem
    /// Bytes the filesystem should have available.
    public var target: UInt64
    /// The target as given (`20%`, `10G`), for messages.
    public var asked: String
    /// The filesystem's size and available bytes when the run planned.
    public var size: UInt64
    public var availableBefore: UInt64
    /// Every snapshot thin may delete, in its order (oldest or largest first).
    public var eligible: [PlannedSnapshot]
    /// The extent map when sizes are exact: batches are planned by what sets free together.
    public var exact: ExactSizes?
    /// `--max-count`: deletions this run may make in all its batches.
    public var limit: Int?

    public init(
        filesystem: Filesystem, target: UInt64, asked: String, space: SpaceUsage, eligible: [PlannedSnapshot],
        exact: ExactSizes?
    ) {
        self.filesystem = filesystem; self.target = target; self.asked = asked; self.size = space.size
        self.availableBefore = space.available; self.eligible = eligible; self.exact = exact
    }

    /// Bytes still missing when `available` bytes are available; 0 once the target holds.
    public func shortfall(available: UInt64) -> UInt64 { target > available ? target - available : 0 }

    /// "50% (512M)" or "512M": the target for a message.
    public var targetText: String {
        asked.hasSuffix("%") ? "\(asked) (\(ByteSize.format(target)))" : ByteSize.format(target)
    }

    /// The eligible snapshots not in `tried`, in order, that are expected to free
    /// `shortfall` on top of what `deleted` freed: the fewest that reach it, or all of
    /// them when even all fall short. Exact sizes count what the set frees together
    /// (a block shared by a deleted snapshot and one of these comes back too); quota
    /// sizes add exclusive bytes, a lower bound.
    public func batch(shortfall: UInt64, tried: Set<UInt64> = [], deleted: [UInt64] = []) -> [PlannedSnapshot] {
        let remaining = eligible.filter { !tried.contains($0.subvolume.id) }
        guard shortfall > 0, !remaining.isEmpty else { return [] }
        let gains = cumulativeReclaim(of: remaining, after: deleted)
        let enough = gains.firstIndex { $0 >= shortfall } ?? remaining.count - 1
        return Array(remaining[...enough])
    }

    /// What all eligible snapshots are expected to free together.
    public var everything: UInt64 { cumulativeReclaim(of: eligible, after: []).last ?? 0 }

    /// Element k: what the first k+1 of `snapshots` free beyond what `deleted` freed.
    func cumulativeReclaim(of snapshots: [PlannedSnapshot], after deleted: [UInt64]) -> [UInt64] {
        guard let exact else {
            var running: UInt64 = 0
            return snapshots.map {
                running += $0.subvolume.exclusive ?? 0; return running
            }
        }
        let curve = exact.map.reclaimCurve(deleting: deleted + snapshots.map(\.subvolume.id))
        let base = deleted.isEmpty ? 0 : curve[deleted.count - 1]
        return curve[deleted.count...].map { $0 - base }
    }
}

extension ThinRefusal {
    /// Builds the refusal for a target that every eligible snapshot together cannot reach.
    static func unreachable(_ goal: AvailabilityGoal) -> ThinRefusal {
        let expected = goal.availableBefore + goal.everything
        return .targetUnreachable(
            filesystem: goal.filesystem.mountpoint, eligible: goal.eligible.count, available: goal.availableBefore,
            expected: expected, target: goal.targetText, shortfall: goal.shortfall(available: expected))
    }
}

extension AvailabilityGoal {
    /// The up-front plan: nothing when the target holds already; else the fewest
    /// snapshots in order expected to reach it. Refuses when none may go or even all
    /// fall short, unless `bestEffort` (then all eligible go).
    public func plan(bestEffort: Bool, sizeNote: String?) throws(ThinRefusal) -> [PlannedSnapshot] {
        let missing = shortfall(available: availableBefore)
        guard missing > 0 else { return [] }
        guard !eligible.isEmpty else {
            throw .targetUnreachable(
                filesystem: filesystem.mountpoint, eligible: 0, available: availableBefore,
                expected: availableBefore, target: targetText, shortfall: missing)
        }
        if exact == nil, eligible.contains(where: { $0.subvolume.exclusive == nil }) {
            throw .sizesUnknown(filesystem: filesystem.mountpoint, note: sizeNote)
        }
        if everything < missing && !bestEffort { throw .unreachable(self) }
        return batch(shortfall: missing)
    }

    /// The one line that says the target holds already.
    public var metText: String {
        "nothing to delete: \(ByteSize.format(availableBefore)) available on \(filesystem.mountpoint)"
            + "\(size > 0 ? " (\(Self.percent(availableBefore, of: size)))" : ""), at least \(targetText) asked for"
    }

    /// "48.2%": `part` of `whole`, to one decimal, rounded down.
    static func percent(_ part: UInt64, of whole: UInt64) -> String {
        guard whole > 0 else { return "-" }
        let (high, low) = part.multipliedFullWidth(by: 1000)
        let tenths = high >= whole ? UInt64.max : whole.dividingFullWidth((high, low)).quotient
        return "\(tenths / 10).\(tenths % 10)%"
    }
}
