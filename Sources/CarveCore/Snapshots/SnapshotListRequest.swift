import Foundation

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
        let listed = try filesystems(backend).map { filesystem in
            try scanning { try backend.subvolumes(of: filesystem, sizes: sizes) }
        }
        return BackupChains.linked(listed, backend: backend)
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

    /// Positions of every snapshot the identity criteria match (`--explain` shows them all).
    public func considered(in listing: VolumeListing) -> [Int] {
        selection.consideredIndices(in: comparable(listing))
    }

    /// For each considered snapshot (by id): whether the selection takes it, and the
    /// retention rules that keep it.
    public func explanations(in listing: VolumeListing, now: Date) -> [UInt64: SnapshotExplanation] {
        let subvolumes = comparable(listing)
        let selected = Set(selection.selectedIndices(in: subvolumes, now: now).map { subvolumes[$0].id })
        let reasons = selection.retentionReasons(in: subvolumes, now: now)
        var result: [UInt64: SnapshotExplanation] = [:]
        for index in selection.consideredIndices(in: subvolumes) {
            let id = subvolumes[index].id
            result[id] = SnapshotExplanation(selected: selected.contains(id), keptBy: reasons[id] ?? [])
        }
        return result
    }

    /// With `--all-subvolumes`, plain subvolumes go through the filters as snapshots do.
    private func comparable(_ listing: VolumeListing) -> [Volume] {
        guard allSubvolumes else { return listing.subvolumes }
        var everything = listing.subvolumes
        for index in everything.indices { everything[index].isSnapshot = true }
        return everything
    }

    /// Positions in `listing.subvolumes` of what is shown: positions, not copies, so ten
    /// thousand selected snapshots are not held twice.
    public func selected(in listing: VolumeListing, now: Date) -> [Int] {
        guard allSubvolumes else { return selection.selectedIndices(in: listing.subvolumes, now: now) }
        return selection.selectedIndices(in: comparable(listing), now: now)
    }
}
