/// `carve snapshots delete`: snapshots named by path, snapper number or id, and
/// those the selection options choose on the filesystems in scope (union).
public struct DeleteRequest: Sendable {
    public var names: [SnapshotName]
    public var ids: [UInt64]
    /// `--filesystem` paths; empty: every mounted btrfs filesystem.
    public var filesystems: [String]
    public var selection: SnapshotSelection
    /// How sizes are found: quota, or exact (a scan of every subvolume's extents).
    public var sizes: SizeMode = .auto
    /// False when nothing will print an estimate (--yes, no --json, no --dry-run):
    /// named snapshots are then deleted without a scan for one (`sizes` auto only).
    public var estimateWanted = true

    /// Parses the names; refuses a request that names nothing (deleting every
    /// snapshot takes `--all`).
    public init(names: [String], ids: [UInt64], filesystems: [String], selection: SnapshotSelection) throws(UsageError)
    {
        var parsed: [SnapshotName] = []
        for name in names { parsed.append(try SnapshotName.parse(name)) }
        self.names = parsed; self.ids = ids; self.filesystems = filesystems; self.selection = selection
        guard !parsed.isEmpty || !ids.isEmpty || usesSelection else {
            throw UsageError(
                "no snapshots named: give SNAPSHOT paths, CONFIG:NUMBER, --id or a selection option (--all deletes every snapshot)"
            )
        }
    }

    var usesSelection: Bool { selection.hasCriteria || selection.all }

    /// Where to look: `--filesystem`; else, when only paths name snapshots, their
    /// filesystems; else every mounted btrfs filesystem.
    var scopePaths: [String] {
        guard filesystems.isEmpty, ids.isEmpty, !usesSelection else { return filesystems }
        var paths: [String] = []
        for name in names {
            guard case .path(let path) = name else { return [] }
            paths.append(path)
        }
        return paths
    }

    public func plan(backend: any SnapshotBackend, rules: DeletionRules, now: Date) throws -> DeletionPlan {
        // One statfs per named path places it; the filesystems to list follow from them.
        let named = names.compactMap { name -> String? in
            if case .path(let path) = name {
                return SnapshotResolver.absolute(path, from: backend.workingDirectory)
            } else {
                return nil
            }
        }
        if !rules.ignoreInUse, !named.isEmpty { rules.holders?.prefetch(devicesOf: named) }
        let located =
            named.isEmpty
            // Only btrfs places a path in one call: no other backend is asked (no lvs run).
            ? LocatedPaths()
            : LocatedPaths(named, backend: backend, among: try backend.mountedFilesystems(ofKind: .btrfs))
        // Quota numbers cost one small tree search: taken when they are there, never a scan.
        let skipSizes = !estimateWanted && sizes == .auto && !usesSelection
        var listings = BackupChains.linked(
            try Scope.listings(scopePaths, backend: backend, sizes: skipSizes ? .quota : sizes, located: located),
            backend: backend)
        if skipSizes {
            for index in listings.indices where listings[index].sizes == .none { listings[index].sizeNote = nil }
        }
        let resolver = SnapshotResolver(
            backend: backend, listings: listings, scoped: !filesystems.isEmpty, located: located)
        var selected: [PlannedSnapshot] = []
        selected.reserveCapacity(names.count + ids.count)
        for name in names {
            // A path names one snapshot: appended as it is, not through an array of one.
            if case .path(let path) = name {
                selected.append(try resolver.resolve(path: path))
            } else {
                selected += try resolver.resolve(name)
            }
        }
        for id in ids { selected.append(try resolver.resolve(id: id)) }
        var pairNotes: [String] = [], kept: [KeptSnapshot] = []
        if usesSelection {
            for listing in listings {
                let outcome = selection.evaluate(listing.subvolumes, now: now)
                selected += outcome.selected.map {
                    PlannedSnapshot(subvolume: listing.subvolumes[$0], filesystem: listing.filesystem)
                }
                pairNotes += outcome.pairNotes
                kept += DeletionPlan.keptByRetention(outcome, in: listing)
            }
        }
        var plan = DeletionPlan.make(
            selected: selected, rules: rules,
            notes: Scope.notes(listings, for: selected) + pairNotes + DeletionPlan.exactNotes(listings),
            listings: listings)
        plan.finish(from: listings, kept: kept)
        if estimateWanted { plan.measureReclaim(with: backend) }
        plan.sizesSkipped = skipSizes && listings.contains { $0.sizes == .none }
        // Freed at exit, not here: a thousand named snapshots among thousands listed took
        // longer to destroy than to resolve.
        FreedAtExit.keep(listings)
        FreedAtExit.keep(selected)
        return plan
    }
}

/// `carve snapshots thin PATH --free SIZE`: the selected snapshots of one filesystem,
/// in `order`, until the estimated reclaim reaches the target.
public struct ThinRequest: Sendable {
    public var path: String
    public var target: UInt64
    public var selection: SnapshotSelection
    public var order: ThinOrder
    public var bestEffort: Bool
    /// How sizes are found: quota, or exact (thin then chooses by what the set frees together).
    public var sizes: SizeMode = .auto
    /// `--until-available` instead of `--free`: `target` is then unused.
    public var availability: AvailabilityTarget? = nil

    public init(
        path: String, free: String, selection: SnapshotSelection, order: ThinOrder, bestEffort: Bool
    ) throws(UsageError) {
        let target: UInt64
        do { target = try ByteSize.parse(free) } catch { throw UsageError("--free: \(error.message)") }
        guard target > 0 else { throw UsageError("--free \(free): nothing to free; give a size above 0") }
        self.path = path; self.target = target; self.selection = selection; self.order = order;
        self.bestEffort = bestEffort
    }

    public func plan(backend: any SnapshotBackend, rules: DeletionRules, now: Date) throws -> DeletionPlan {
        if let availability { return try plan(until: availability, backend: backend, rules: rules, now: now) }
        let (listing, outcome, allowed) = try selected(backend: backend, rules: rules, now: now)
        let planner = ThinPlanner(target: target, order: order, bestEffort: bestEffort)
        let chosen = try allowed.explainingRefusal {
            try listing.exact.map {
                try planner.choose(from: allowed.toDelete, filesystem: listing.filesystem.mountpoint, exact: $0)
            }
                ?? planner.choose(
                    from: allowed.toDelete, filesystem: listing.filesystem.mountpoint, sizeNote: listing.sizeNote)
        }
        var plan = DeletionPlan(toDelete: chosen, protected: allowed.protected, notes: Self.notes(listing, outcome))
        plan.finish(from: [listing], kept: DeletionPlan.keptByRetention(outcome, in: listing))
        plan.measureReclaim(with: backend)
        let everything = plan.exactReclaim(of: allowed.toDelete) ?? DeletionPlan.exclusiveSum(allowed.toDelete)
        if everything.map({ $0 < target }) == true {
            plan.notes.append(
                "--best-effort: every eligible snapshot together frees less than \(ByteSize.format(target))")
        }
        return plan
    }

    /// The filesystem's listing, what the selection does with it, and the part of its
    /// choice the rules allow (oldest first) and protect.
    func selected(
        backend: any SnapshotBackend, rules: DeletionRules, now: Date
    ) throws -> (listing: VolumeListing, outcome: SelectionOutcome, allowed: DeletionPlan) {
        let listings = BackupChains.linked(try Scope.listings([path], backend: backend, sizes: sizes), backend: backend)
        guard let listing = listings.first else { throw UsageError("\(path): no filesystem with snapshots") }
        let outcome = selection.evaluate(listing.subvolumes, now: now)
        let selected = outcome.selected.map {
            PlannedSnapshot(subvolume: listing.subvolumes[$0], filesystem: listing.filesystem)
        }
        return (listing, outcome, DeletionPlan.make(selected: selected, rules: rules, listings: [listing]))
    }

    /// The listing's warnings, the selection's notes on pre/post pairs, the exact scan's summary.
    static func notes(_ listing: VolumeListing, _ outcome: SelectionOutcome) -> [String] {
        listing.warnings.map { "warning: \($0)" } + outcome.pairNotes + DeletionPlan.exactNotes([listing])
    }
}

/// The filesystems a command works on and their listings.
enum Scope {
    /// `paths` (each a path inside a btrfs filesystem) or, when empty, every mounted
    /// btrfs filesystem; each once. A path not on btrfs is bad input here.
    static func listings(
        _ paths: [String], backend: any SnapshotBackend, sizes: SizeMode = .quota,
        located: LocatedPaths = LocatedPaths()
    ) throws -> [VolumeListing] {
        var filesystems: [Filesystem] = []
        if paths.isEmpty {
            // Every mounted one: a filesystem unmounted meanwhile is left out with a warning.
            return try backend.mountedFilesystems().compactMap { filesystem in
                do {
                    return try backend.subvolumes(of: filesystem, sizes: sizes)
                } catch {
                    return .leftOut(filesystem, warning: "cannot list snapshots on \(filesystem.mountpoint): \(error)")
                }
            }
        } else {
            for path in paths {
                let absolute = SnapshotResolver.commandLine(path, backend: backend)
                let filesystem = try located[absolute]?.filesystem ?? backend.filesystem(named: absolute)
                if !filesystems.contains(where: { $0.uuid == filesystem.uuid }) { filesystems.append(filesystem) }
            }
        }
        return try filesystems.map { try backend.subvolumes(of: $0, sizes: sizes) }
    }

    /// Size notes and warnings of the filesystems that have selected snapshots.
    static func notes(_ listings: [VolumeListing], for selected: [PlannedSnapshot]) -> [String] {
        let touched = Set(selected.map(\.filesystem.uuid))
        return listings.filter { touched.contains($0.filesystem.uuid) || $0.subvolumes.isEmpty }.flatMap { listing in
            listing.warnings.map { "warning: \($0)" } + (listing.sizeNote.map { [$0] } ?? [])
        }
    }
}
