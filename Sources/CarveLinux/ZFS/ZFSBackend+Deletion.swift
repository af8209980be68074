import CarveCore
import Glibc

/// Destroying ZFS snapshots: `zfs destroy DATASET@a,b,c` for a dataset's batch where the
/// dialect takes comma lists (one transaction: all or none), one `zfs destroy` each where
/// it does not; what a set frees from `zfs destroy -n -v -p`; waiting for the pool's
/// `freeing` to reach zero.
extension ZFSBackend: SnapshotBatchDeleting, SnapshotReclaimMeasuring {
    public func currentState(of subvolume: Volume, on filesystem: Filesystem) throws -> Volume? {
        try currentStates(of: [subvolume], on: filesystem)[0]
    }

    /// A ZFS snapshot is read-only for good: never a clone in use, whatever happens to it.
    public func refreshingCloneState(of subvolume: Volume, on filesystem: Filesystem) throws -> Volume { subvolume }

    /// A ZFS snapshot holds no datasets (its children's snapshots are their own).
    public func nestedVolumes(of subvolume: Volume, on filesystem: Filesystem) throws -> [Volume] { [] }

    public func batchKey(of subvolume: Volume, on filesystem: Filesystem) -> String? {
        String(ZFSName.dataset(of: subvolume.path))
    }

    /// One `zfs list` (or `zfs get`) of the snapshots by name: their holds, clones and
    /// sizes now, and where they are mounted and sent. What the listing learnt of their
    /// owner, series and replication base is kept: a base that a newer snapshot replaced
    /// meanwhile stays kept for this run.
    public func currentStates(of subvolumes: [Volume], on filesystem: Filesystem) throws -> [Volume?] {
        let names = subvolumes.map(\.path)
        var rows: [ZFSDataset] = []
        for chunk in ZFSArguments.chunks(names) { rows += try listExisting(chunk) }
        let dialect = try tool.currentDialect()
        // Without a `clones` property, a snapshot's clones are the datasets whose origin it is.
        if !dialect.clonesProperty, let pool = filesystem.label {
            rows += try datasetFacts(in: pool).compactMap { fact in
                fact.origin.map { origin in
                    var clone = ZFSDataset(name: fact.name, kind: .filesystem, creation: Date(timeIntervalSince1970: 0))
                    clone.origin = origin
                    return clone
                }
            }
        }
        let listing = ZFSListing(backend: self, datasets: rows)
        let fresh = try listing.volumes(within: filesystem.label ?? "")
        var byName: [String: Volume] = [:]
        for volume in fresh where volume.zfs != nil { byName[volume.path] = volume }
        return subvolumes.map { planned in
            guard var current = byName[planned.path] else { return nil }
            current.metadata = planned.metadata
            current.created = planned.created
            current.isSnapshot = planned.isSnapshot
            current.sourceID = planned.sourceID
            current.sourcePath = planned.sourcePath
            current.chainParent = planned.chainParent
            return current
        }
    }

    /// `zfs list` of named snapshots: a name that no longer exists is left out, any other
    /// failure is the run's.
    private func listExisting(_ names: [String]) throws -> [ZFSDataset] {
        do {
            return try list(names)
        } catch let failure as ZFSCommandFailure {
            let lines = failure.run.stderr.split(separator: "\n")
            guard !lines.isEmpty, lines.allSatisfy({ $0.containsText("dataset does not exist") }) else { throw failure }
            let dialect = try tool.currentDialect()
            return dialect.listParsable
                ? try ZFSListOutput.parseList(failure.run.stdout, columns: dialect.listedProperties)
                : try ZFSListOutput.parseGet(failure.run.stdout)
        }
    }

    public func deleteSubvolume(_ subvolume: Volume, on filesystem: Filesystem, recursive: Bool) throws {
        let run = try tool.run(["zfs", "destroy", subvolume.path])
        guard run.status != 0 else { return }
        let failure = ZFSCommandFailure(arguments: ["zfs", "destroy", subvolume.path], run: run)
        if failure.isNoSuchDataset { throw SystemCallError("zfs destroy", call: "zfs destroy", errno: Errno.ENOENT) }
        throw failure
    }

    /// One `zfs destroy DATASET@a,b,c` per dataset and argument limit where the dialect
    /// takes lists; ZFS destroys such a list in one transaction or not at all, so after a
    /// refusal each is tried alone to learn which one ZFS refused and why.
    public func deleteSubvolumes(_ subvolumes: [Volume], on filesystem: Filesystem) -> [(any Error)?] {
        guard subvolumes.count > 1, (try? tool.currentDialect().snapshotLists) == true else {
            return subvolumes.map { volume in
                Result { try deleteSubvolume(volume, on: filesystem, recursive: false) }.error
            }
        }
        var errors: [(any Error)?] = []
        for batch in Self.commaLists(subvolumes) {
            let argument = batch.list
            let run = Result { try tool.run(["zfs", "destroy", argument]) }
            if case .success(let done) = run, done.status == 0 {
                errors += Array(repeating: nil, count: batch.members.count)
            } else {
                errors += batch.members.map { volume in
                    Result { try deleteSubvolume(volume, on: filesystem, recursive: false) }.error
                }
            }
        }
        return errors
    }

    /// The snapshots as `DATASET@a,b,c` arguments, each within one argument's limit: a
    /// dataset's snapshots together in their order, the datasets in the order of their first.
    static func commaLists(_ subvolumes: [Volume]) -> [(list: String, members: [Volume])] {
        var lists: [(list: String, members: [Volume])] = []
        var open: [Substring: Int] = [:]
        for volume in subvolumes {
            let dataset = ZFSName.dataset(of: volume.path)
            let name = ZFSName.snapshot(of: volume.path) ?? ""
            if let index = open[dataset], lists[index].list.utf8.count + 1 + name.utf8.count <= ZFSArguments.oneLimit {
                lists[index].list += "," + name
                lists[index].members.append(volume)
            } else {
                open[dataset] = lists.count
                lists.append((volume.path, [volume]))
            }
        }
        return lists
    }

    /// `zfs destroy -n -v -p` of each dataset's part of the set: exact for the set when
    /// each dataset's part fits one argument (ZFS adds up what each run of consecutive
    /// snapshots frees, and blocks never span a gap); nil where the dialect has no dry run.
    public func measuredReclaim(of subvolumes: [Volume], on filesystem: Filesystem) throws -> MeasuredReclaim? {
        guard try tool.currentDialect().destroyDryRun, !subvolumes.isEmpty else { return nil }
        let lists = Self.commaLists(subvolumes)
        var total: UInt64 = 0
        // Each dataset's part in one argument: ZFS counts what the whole part frees.
        for list in lists {
            total += try ZFSCommandOutput.destroyDryRun(tool.output(["zfs", "destroy", "-n", "-v", "-p", list.list]))
                .reclaim
        }
        let datasets = Set(subvolumes.map { ZFSName.dataset(of: $0.path) })
        return MeasuredReclaim(
            bytes: total, exact: lists.count == datasets.count,
            source: lists.count == datasets.count
                ? "zfs destroy -nvp (exact for the set)"
                : "zfs destroy -nvp in parts (a lower bound: the set did not fit one argument per dataset)")
    }

    /// OpenZFS frees a destroyed snapshot's blocks in the background: waits until the
    /// pool's `freeing` is zero. zfs-fuse frees them before `zfs destroy` returns.
    public func waitForCleanup(of ids: [UInt64], on filesystem: Filesystem) throws {
        guard try tool.currentDialect().poolParsable, let pool = filesystem.label else { return }
        while try ZFSCommandOutput.freeing(tool.output(["zpool", "get", "-H", "-p", "-o", "value", "freeing", pool]))
            > 0
        {
            usleep(200_000)
        }
    }

    /// The used and available bytes of the dataset the filesystem is rooted at (the
    /// pool's root dataset, or the dataset named): `available` counts its quota.
    public func spaceUsage(of filesystem: Filesystem) throws -> SpaceUsage {
        let root = filesystem.mounts.first?.subvolumePath ?? filesystem.mountpoint
        let text = try tool.output(["zfs", "get", "-H", "-p", "-o", "value", "used,available", root])
        let values = text.split(separator: "\n").map { UInt64($0) }
        guard values.count == 2, let used = values[0], let available = values[1] else {
            throw ParseError(tool: "zfs get used,available", reason: "not two byte counts")
        }
        return SpaceUsage(used: used, available: available, size: used + available)
    }
}

extension Result {
    /// The error, or nil on success.
    var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
