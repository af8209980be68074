/// A selected snapshot that the safety rules keep, and why.
public struct ProtectedSnapshot: Sendable {
    public var snapshot: PlannedSnapshot
    public var protections: [Protection]
    public var reason: String { protections.map(\.reason).joined(separator: "; ") }
}

/// A snapshot the retention rules keep, and the rules that keep it.
public struct KeptSnapshot: Sendable {
    public var snapshot: PlannedSnapshot
    public var keptBy: [RetentionReason]
}

/// What a delete or thin run will do, computed in full before anything is deleted.
public struct DeletionPlan: Sendable {
    /// The snapshots to delete, oldest first (thin: in its chosen order).
    public var toDelete: [PlannedSnapshot]
    /// Selected, but kept by a safety rule.
    public var protected: [ProtectedSnapshot]
    /// Notes for stderr, e.g. why sizes are unknown.
    public var notes: [String]
    /// With `--sizes exact`: each scanned filesystem's extent map by UUID, so that
    /// what any part of the plan frees together is known exactly.
    public var exactSizes: [String: ExactSizes] = [:]
    /// The filesystems the run works on, where it finishes what killed runs left.
    public var interruptedScopes: [InterruptedDeletionScope] = []
    /// With retention rules: the snapshots they keep, oldest first, so a dry run can say
    /// why each survivor survives.
    public var kept: [KeptSnapshot] = []
    /// `thin --until-available`: the target, so that `--wait` can check it after each batch.
    public var goal: AvailabilityGoal? = nil
    /// Sizes were not looked for, since nothing prints them (named snapshots deleted
    /// with --yes): the report then says nothing of space rather than "unknown".
    public var sizesSkipped = false
    /// What each filesystem said its part of `toDelete` frees together (ZFS), by UUID.
    public var measuredReclaims: [String: MeasuredPart] = [:]

    /// The snapshots of a listing that retention keeps, by the outcome of its selection.
    static func keptByRetention(_ outcome: SelectionOutcome, in listing: VolumeListing) -> [KeptSnapshot] {
        outcome.considered.compactMap { index in
            let subvolume = listing.subvolumes[index]
            return outcome.keptBy[subvolume.id].map {
                KeptSnapshot(
                    snapshot: PlannedSnapshot(subvolume: subvolume, filesystem: listing.filesystem), keptBy: $0)
            }
        }
    }

    public init(toDelete: [PlannedSnapshot], protected: [ProtectedSnapshot] = [], notes: [String] = []) {
        self.toDelete = toDelete; self.protected = protected; self.notes = notes
    }

    /// The last step of every delete and thin plan: what the run needs of the listings
    /// (their exact extent maps, where to finish interrupted runs) and the snapshots
    /// retention keeps, oldest first.
    mutating func finish(from listings: [VolumeListing], kept: [KeptSnapshot]) {
        exactSizes = Self.exactSizes(listings)
        interruptedScopes = InterruptedDeletionScope.from(listings)
        self.kept = kept.sorted { olderFirst($0.snapshot, $1.snapshot) }
    }

    /// Splits `selected` (deduplicated by filesystem and id) into what the rules let
    /// carve delete and what they protect; both oldest first. With `--recursive`, the
    /// subvolumes nested below each snapshot are found in `listings` and checked with it.
    public static func make(
        selected: [PlannedSnapshot], rules: DeletionRules, notes: [String] = [], listings: [VolumeListing] = []
    ) -> DeletionPlan {
        // Read in place and moved, not copied: a planned snapshot holds some thirty
        // references, and a thousand named ones were copied five times each.
        var seen = Set<SnapshotKey>(minimumCapacity: selected.count)
        var namedKeys = Set<SnapshotKey>(minimumCapacity: selected.count)
        var unique: [PlannedSnapshot] = []
        unique.reserveCapacity(selected.count)
        for index in selected.indices {
            let key = selected[index].key
            // A snapshot named and selected at once is named: its refusal is a failure.
            if selected[index].named { namedKeys.insert(key) }
            if seen.insert(key).inserted { unique.append(selected[index]) }
        }
        for index in unique.indices where !unique[index].named && namedKeys.contains(unique[index].key) {
            unique[index].named = true
        }
        unique.sort(by: olderFirst)
        let nesting = rules.recursive ? NestedVolumes(listings) : nil
        let protections = unique.indices.map { index in
            let nested =
                unique[index].subvolume.hasNestedSubvolumes
                ? nesting?.below(unique[index].subvolume, on: unique[index].filesystem) ?? [] : []
            return rules.protections(
                of: unique[index].subvolume, on: unique[index].filesystem, named: unique[index].named, nested: nested)
        }
        var plan = DeletionPlan(toDelete: [], notes: notes)
        if protections.allSatisfy({ $0.isEmpty }) {
            plan.toDelete = consume unique
        } else {
            for index in unique.indices {
                if protections[index].isEmpty {
                    plan.toDelete.append(unique[index])
                } else {
                    plan.protected.append(ProtectedSnapshot(snapshot: unique[index], protections: protections[index]))
                }
            }
        }
        plan.notes += plan.unseenNotes
        return plan
    }

    /// The processes carve could not look into that keep snapshots of the plan, each set once.
    public var unseenProcesses: [UnseenProcesses] {
        var seen = Set<UnseenProcesses>()
        return protected.flatMap { $0.protections.flatMap(\.unseenProcesses) }.filter { seen.insert($0).inserted }
    }

    /// Once a plan: which processes carve could not look into, and why.
    var unseenNotes: [String] { unseenProcesses.map(\.note) }

    /// `choose` as thin calls it, a refusal saying too that carve kept snapshots it could
    /// not see the holders of: "nothing eligible" alone would hide why.
    func explainingRefusal<T>(_ choose: () throws -> T) throws -> T {
        do {
            return try choose()
        } catch let refusal as ThinRefusal where !unseenNotes.isEmpty {
            throw ThinRefusal.unseenHolders(refusal, because: unseenNotes.joined(separator: "; "))
        }
    }

    /// The least space the deletion frees, from quota exclusive bytes; nil when a size is unknown.
    /// A lower bound: blocks shared only among the deleted snapshots count in no one's
    /// exclusive bytes, yet come back too.
    public var estimatedReclaim: UInt64? {
        measuredReclaim(of: toDelete) ?? exactReclaim(of: toDelete) ?? Self.exclusiveSum(toDelete)
    }

    /// Protected snapshots that count as not done: those the user named, and those kept
    /// only because carve could not see who holds them (it failed closed: the run could
    /// not do all it was asked, and a timer's log must say so).
    public var protectedCountingAsFailed: Int {
        protected.filter { $0.snapshot.named || $0.protections.contains { !$0.unseenProcesses.isEmpty } }.count
    }

    public static func exclusiveSum(_ snapshots: [PlannedSnapshot]) -> UInt64? {
        var total: UInt64 = 0
        for snapshot in snapshots {
            guard let bytes = snapshot.subvolume.exclusive else { return nil }
            total += bytes
        }
        return total
    }
}

/// Oldest first, so a plan reads like the listing: see `Volume.olderFirstKey`.
func olderFirst(_ a: PlannedSnapshot, _ b: PlannedSnapshot) -> Bool {
    a.subvolume.olderFirstKey(on: a.filesystem.uuid) < b.subvolume.olderFirstKey(on: b.filesystem.uuid)
}

extension Volume {
    /// The one oldest-first order of plans, kept snapshots and check's remedies: the
    /// date taken (the manager's, else otime), then the filesystem, then the id.
    func olderFirstKey(on filesystem: String = "") -> (Date, String, UInt64) {
        (metadata.created ?? created, filesystem, id)
    }
}
