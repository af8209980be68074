/// The selection options shared by `snapshots list`, `delete` and `thin`:
/// which snapshots of one filesystem a command is about.
///
/// Every criterion given must hold (they narrow each other). Retention rules
/// (`--keep-last`, `--keep-daily` …, `--keep-within`) then keep, per group (a
/// source subvolume, a snapper config, the backups of one btrbk subvolume), the
/// snapshots they name among those that match the identity criteria
/// (`--manager`, `--source`, `--match`), whatever their age: `--older-than 30d
/// --keep-last 3` never leaves a source with fewer than its 3 newest snapshots.
/// `--all` selects every snapshot when no criterion is given; commands that
/// delete require a criterion or `--all`.
public struct SnapshotSelection: Sendable, Hashable {
    public var olderThan: TimeSpan?
    public var before: Date?
    public var after: Date?
    /// Matched against the path from the top level, the mounted path, the last
    /// path component and the description.
    public var match: Glob?
    /// Empty: any manager.
    public var managers: Set<SnapshotManager>
    /// Source subvolumes, by path from the top level (leading slash optional),
    /// by mounted path, or by subvolume id. Empty: any source.
    public var sources: [String]
    public var retention: RetentionPolicy
    /// snapper's cleanup algorithms (`SnapperCleanup`'s names); empty: any.
    public var cleanup: Set<String> = []
    /// Lets a selection take one half of a snapper pre/post pair without the other.
    public var splitPairs = false
    public var all: Bool
    /// Where calendar rules (`--older-than 6m`, `--keep-daily`) count days and months;
    /// the command line passes the clock's local zone.
    public var timeZone: TimeZone

    public init(
        olderThan: TimeSpan? = nil, before: Date? = nil, after: Date? = nil, match: Glob? = nil,
        managers: Set<SnapshotManager> = [], sources: [String] = [], keepLast: Int? = nil,
        retention: RetentionPolicy = RetentionPolicy(), all: Bool = false, timeZone: TimeZone = .utc
    ) {
        self.olderThan = olderThan; self.before = before; self.after = after; self.match = match
        self.managers = managers; self.sources = sources; self.retention = retention; self.all = all
        self.timeZone = timeZone
        if let keepLast { self.retention.last = keepLast }
    }

    /// True when some criterion narrows the selection (`--all` is not a criterion).
    public var hasCriteria: Bool {
        olderThan != nil || before != nil || after != nil || match != nil || !managers.isEmpty
            || !sources.isEmpty || !retention.isEmpty || !cleanup.isEmpty
    }

    /// The selected snapshots of one filesystem's subvolumes, in the order given.
    /// Pass every subvolume of the filesystem (a listing's `subvolumes`), so that a
    /// `--source` given as a mounted path can be found; subvolumes that are not
    /// snapshots are never selected.
    public func apply(to subvolumes: [Volume], now: Date) -> [Volume] {
        selectedIndices(in: subvolumes, now: now).map { subvolumes[$0] }
    }

    /// The positions in `subvolumes` of the selected snapshots, in order: lets a
    /// caller with ten thousand snapshots avoid copying them to select them.
    public func selectedIndices(in subvolumes: [Volume], now: Date) -> [Int] {
        evaluate(subvolumes, now: now).selected
    }

    /// Everything the selection decides about `subvolumes`, computed once: what it
    /// considers, what retention keeps and why, what it takes, and the pairs it kept whole.
    public func evaluate(_ subvolumes: [Volume], now: Date) -> SelectionOutcome {
        let resolved = resolvingMountedSources(in: subvolumes)
        // Without such criteria (most listings) a subvolume is not handed to the tests:
        // handing one over copied it whole, ten thousand times.
        let byIdentity = !managers.isEmpty || !sources.isEmpty || match != nil || !cleanup.isEmpty
        let byTime = olderThan != nil || before != nil || after != nil
        let considered = subvolumes.indices.filter {
            subvolumes[$0].isSnapshot && (!byIdentity || resolved.matchesIdentity(subvolumes[$0]))
        }
        let kept = retention.isEmpty ? [:] : resolved.keptByRetention(considered, of: subvolumes, now: now)
        let chosen = considered.filter {
            kept[subvolumes[$0].id] == nil && (!byTime || matchesTime(subvolumes[$0], now: now))
        }
        let pairs = SnapperPairs(subvolumes)
        guard !splitPairs, pairs.hasPairs else {
            return SelectionOutcome(
                considered: considered, keptBy: kept, selected: chosen, splitPairs: [], pairNotes: [])
        }
        let together = pairs.keepingTogether(chosen, in: subvolumes)
        return SelectionOutcome(
            considered: considered, keptBy: kept, selected: together.selected,
            splitPairs: together.split, pairNotes: together.split.map { SnapperPairs.note($0, in: subvolumes) })
    }

    func matchesIdentity(_ snapshot: Volume) -> Bool {
        if !managers.isEmpty && !managers.contains(snapshot.metadata.manager) { return false }
        if !sources.isEmpty && !sources.contains(where: { Self.source($0, names: snapshot) }) { return false }
        if let match, !Self.glob(match, matches: snapshot) { return false }
        if !cleanup.isEmpty
            && !(snapshot.metadata.manager == .snapper && snapshot.metadata.cleanup.map(cleanup.contains) == true)
        {
            return false
        }
        return true
    }

    func matchesTime(_ snapshot: Volume, now: Date) -> Bool {
        if let olderThan, !(snapshot.created < olderThan.before(now, in: timeZone)) { return false }
        if let before, !(snapshot.created < before) { return false }
        if let after, !(snapshot.created > after) { return false }
        return true
    }

    /// The kept snapshots of every retention group, with the rules that keep them.
    func keptByRetention(_ candidates: [Int], of subvolumes: [Volume], now: Date) -> [UInt64: [RetentionReason]] {
        let retention = Retention(policy: retention, timeZone: timeZone, now: now)
        // Grouped by position: grouping ten thousand (fat) volumes copied each one.
        var groups: [String: [Retention.Member]] = [:]
        for index in candidates {
            groups[Self.retentionGroup(subvolumes[index]), default: []]
                .append(Retention.Member(id: subvolumes[index].id, date: subvolumes[index].created))
        }
        var kept: [UInt64: [RetentionReason]] = [:]
        for group in groups.values { kept.merge(retention.kept(group)) { a, _ in a } }
        return kept
    }

    /// The group retention counts in. A snapper config's snapshots are one group; a
    /// received backup's parent UUID is the previous backup, so backups group by the
    /// directory and the name btrbk gave them (or, unnamed, by directory); other
    /// snapshots by manager and source subvolume (timeshift's and btrbk's snapshots of
    /// one subvolume are two series), which the snapshots of a deleted source still
    /// share as a parent UUID; a ZFS tool's snapshots by dataset and series (the label or
    /// type its name carries).
    static func retentionGroup(_ snapshot: Volume) -> String {
        let manager = snapshot.metadata.manager
        if manager == .snapper, let config = snapshot.metadata.config { return "snapper:\(config)" }
        if snapshot.receivedUUID != nil {
            let directory = snapshot.path.split(separator: "/").dropLast().joined(separator: "/")
            // btrbk's name is SUBVOLUME.STAMP: the series is the part before the stamp.
            if manager == .btrbk, let name = snapshot.metadata.name, let dot = name.lastIndex(of: ".") {
                return "received:\(directory)/\(name[..<dot])"
            }
            return "received:\(directory)"
        }
        // A ZFS tool's series (zfs-auto-snapshot's label, sanoid's type, syncoid's target) is its own.
        if let series = snapshot.metadata.type { return "\(manager.rawValue):\(sourceKey(snapshot)):\(series)" }
        return "\(manager.rawValue):\(sourceKey(snapshot))"
    }

    /// Snapshots of a source that no longer exists still share its parent UUID.
    static func sourceKey(_ snapshot: Volume) -> String {
        if let id = snapshot.sourceID { return "id:\(id)" }
        if let uuid = snapshot.parentUUID { return "uuid:\(uuid)" }
        return "none"
    }

    static func source(_ name: String, names snapshot: Volume) -> Bool {
        if let id = UInt64(name), snapshot.sourceID == id { return true }
        guard let sourcePath = snapshot.sourcePath else { return false }
        return trimmedSlashes(name) == trimmedSlashes(sourcePath)
    }

    /// `--source /home` names the subvolume mounted there: rewritten to its path from the top level.
    func resolvingMountedSources(in subvolumes: [Volume]) -> SnapshotSelection {
        var copy = self
        copy.sources = sources.flatMap { name -> [String] in
            let mounted = subvolumes.filter { $0.mountedPath.map(Self.trimmedSlashes) == Self.trimmedSlashes(name) }
            return [name] + mounted.map(\.path)
        }
        return copy
    }

    static func glob(_ glob: Glob, matches snapshot: Volume) -> Bool {
        let lastComponent = snapshot.path.split(separator: "/").last.map(String.init) ?? snapshot.path
        let candidates = [
            snapshot.path, "/" + snapshot.path, snapshot.mountedPath, lastComponent, snapshot.metadata.description,
        ]
        return candidates.contains { $0.map(glob.matches) ?? false }
    }

    static func trimmedSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.hasPrefix("/") { path.removeFirst() }
        while path.hasSuffix("/") { path.removeLast() }
        return String(path)
    }
}
