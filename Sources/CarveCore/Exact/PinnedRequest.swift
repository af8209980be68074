/// What only one filesystem's part of a set of snapshots holds, file by file.
public struct PinnedSet: Sendable {
    public var filesystem: Filesystem
    /// The set's members on this filesystem, oldest first.
    public var snapshots: [PlannedSnapshot]
    public var pinned: PinnedFiles

    /// Per filesystem of `snapshots` (in their order), what only its members hold, read
    /// through `reader` with the extent map of `exact` when the caller has one.
    public static func sets(
        of snapshots: [PlannedSnapshot], exact: [String: ExactSizes], reader: any PinnedFileReading
    ) throws -> [PinnedSet] {
        var order: [String] = []
        var members: [String: [PlannedSnapshot]] = [:]
        for snapshot in snapshots {
            let uuid = snapshot.filesystem.uuid
            if members[uuid] == nil { order.append(uuid) }
            members[uuid, default: []].append(snapshot)
        }
        return try order.map { uuid in
            let part = members[uuid]!.sorted(by: olderFirst)
            let filesystem = part[0].filesystem
            let pinned = try reader.pinnedFiles(of: part.map(\.subvolume.id), on: filesystem, exact: exact[uuid])
            return PinnedSet(
                filesystem: filesystem, snapshots: part,
                pinned: pinned.naming(from: part.map(\.subvolume), on: filesystem))
        }
    }
}

/// `carve snapshots pinned`: the snapshots named or selected as `delete` names and
/// selects them, and what only they hold. A named snapshot is in the set even when
/// delete would keep it (the question is what it holds); one the selection options
/// choose is in it only when delete would take it, as a dry run shows.
public struct PinnedRequest: Sendable {
    public var snapshots: DeleteRequest

    /// The snapshots `request` names and selects, as delete plans them.
    public init(_ request: DeleteRequest) {
        snapshots = request
        // The rows add up to the exact reclaim whether quotas are on or off.
        snapshots.sizes = .exact
    }

    /// The result: one `PinnedSet` per filesystem, and notes for stderr.
    public struct Report: Sendable {
        public var sets: [PinnedSet]
        public var notes: [String]
        /// Selected snapshots that delete would keep, left out of the set.
        public var leftOut: [ProtectedSnapshot]
    }

    public func run(backend: any SnapshotBackend, reader: any PinnedFileReading, now: Date) throws -> Report {
        let plan = try snapshots.plan(backend: backend, rules: DeletionRules(), now: now)
        let named = plan.protected.filter(\.snapshot.named)
        let sets = try PinnedSet.sets(
            of: plan.toDelete + named.map(\.snapshot), exact: plan.exactSizes, reader: reader)
        return Report(sets: sets, notes: plan.notes, leftOut: plan.protected.filter { !$0.snapshot.named })
    }
}
