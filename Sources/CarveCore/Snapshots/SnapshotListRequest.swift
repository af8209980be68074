/// `carve snapshots list`: which filesystems, how their sizes are found, which of their
/// volumes are shown. The command renders; this finds.
public struct SnapshotListRequest: Sendable {
    /// Paths inside the filesystems to list; empty: every mounted one.
    public var paths: [String]
    public var selection: SnapshotSelection
    public var sizes: SizeMode
    /// Plain subvolumes too, through the same filters.
    public var allSubvolumes: Bool

    public init(paths: [String], selection: SnapshotSelection, sizes: SizeMode, allSubvolumes: Bool) {
        self.paths = paths; self.selection = selection; self.sizes = sizes; self.allSubvolumes = allSubvolumes
    }

    /// The listings, each filesystem once, with their send/receive chains linked;
    /// `scanning` wraps each listing (a progress line while an exact scan runs).
    public func listings(
        backend: any SnapshotBackend, scanning: (() throws -> VolumeListing) throws -> VolumeListing = { try $0() }
    ) throws -> [VolumeListing] {
        var unavailable: [String] = []
        let listed = try filesystems(backend).map { filesystem in
            do {
                return try scanning { try backend.subvolumes(of: filesystem, sizes: sizes) }
            } catch let error as SystemCallError where paths.isEmpty && Self.isGone(error) {
                return .leftOut(
                    filesystem,
                    warning: "\(filesystem.mountpoint) was unmounted while carve read it; left out (\(error.message))")
            } catch let error as FilesystemUnavailable where paths.isEmpty {
                unavailable.append(error.message)
                return .leftOut(filesystem, warning: "\(error.message): its snapshots are left out")
            }
        }
        // Some listed: the rest are warnings. None: the run failed.
        if !listed.isEmpty, unavailable.count == listed.count {
            throw RuntimeError("no filesystem could be listed: " + unavailable.joined(separator: "; "))
        }
        return BackupChains.linked(listed, backend: backend)
    }

    /// Listing every mounted filesystem, one unmounted between the mount table and its
    /// listing (an automount, another program's test) is left out with a warning; a
    /// filesystem named on the command line is not: its error is the run's.
    static func isGone(_ error: SystemCallError) -> Bool {
        error.errno == Errno.ENOENT || error.errno == Errno.ENOTDIR
    }

    /// The filesystems of the given paths, each once; every mounted one without paths.
    func filesystems(_ backend: any SnapshotBackend) throws -> [Filesystem] {
        guard !paths.isEmpty else { return try backend.mountedFilesystems() }
        var found: [Filesystem] = []
        for path in paths {
            let filesystem = try backend.filesystem(named: path)
            if !found.contains(where: { $0.uuid == filesystem.uuid }) { found.append(filesystem) }
        }
        return found
    }

    /// What the selection decides about one listing (with `--all-subvolumes`, plain
    /// subvolumes go through the filters as snapshots do). Positions, not copies, so ten
    /// thousand selected snapshots are not held twice.
    public func outcome(in listing: VolumeListing, now: Date) -> SelectionOutcome {
        guard allSubvolumes else { return selection.evaluate(listing.subvolumes, now: now) }
        var everything = listing.subvolumes
        for index in everything.indices { everything[index].isSnapshot = true }
        return selection.evaluate(everything, now: now)
    }

    /// For each considered snapshot (by id): whether the selection takes it, the
    /// retention rules that keep it, and the pre/post partner that keeps it.
    public static func explanations(
        _ outcome: SelectionOutcome, of listing: VolumeListing
    ) -> [UInt64: SnapshotExplanation] {
        let subvolumes = listing.subvolumes
        let selected = Set(outcome.selected)
        let pairedWith = Dictionary(outcome.splitPairs.map { ($0.0, subvolumes[$0.1].metadata.number) }) { a, _ in a }
        var result: [UInt64: SnapshotExplanation] = [:]
        for index in outcome.considered {
            let id = subvolumes[index].id
            result[id] = SnapshotExplanation(
                selected: selected.contains(index), keptBy: outcome.keptBy[id] ?? [],
                pairedWith: pairedWith[index] ?? nil)
        }
        return result
    }
}
