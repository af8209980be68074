import CarveCore
import Synchronization

/// ZFS snapshots through the `zfs` and `zpool` commands (their documented scriptable
/// output; libzfs's ABI is not stable): one filesystem per imported pool, or per dataset
/// named on the command line (that dataset and those below it), its datasets and snapshots
/// the volumes. A pool is named by its name, a dataset by `pool/dataset`, and either by a
/// path inside a mounted dataset.
public struct ZFSBackend: SnapshotBackend {
    let tool: ZFSTool
    let mountTable: any MountTable
    /// The `zfs send` processes running now, by the snapshots they read (`ZFSSendScan`).
    let sends: @Sendable () -> [String: [String]]
    /// The zone of the local dates in snapshot names (sanoid's, znapzend's).
    let timeZone: TimeZone
    let pools = PoolCache()

    public init(
        tool: ZFSTool = ZFSTool(), mountTable: any MountTable, host: HostRoot = .system, timeZone: TimeZone = .current,
        sends: (@Sendable () -> [String: [String]])? = nil
    ) {
        self.tool = tool; self.mountTable = mountTable; self.timeZone = timeZone
        self.sends = sends ?? { ZFSSendScan(host: host).running() }
    }

    // MARK: filesystems

    /// Every imported pool. A machine without ZFS has none; a daemon or module that does
    /// not answer, or a pool that is suspended or faulted, is one filesystem whose listing
    /// fails with the reason, so a listing of everything leaves it out with a warning.
    public func mountedFilesystems() throws -> [Filesystem] {
        let known: [ZFSCommandOutput.Pool]
        do {
            known = try pools.value { try readPools() }
        } catch is ZFSToolMissing {
            return []
        } catch let failure as ZFSCommandFailure where failure.isModuleNotLoaded {
            return []
        } catch {
            return [unavailable(name: "zfs", uuid: "zfs", because: "zfs does not answer: \(Self.reason(error))")]
        }
        return known.map { pool in
            pool.isReadable
                ? filesystem(pool, root: pool.name)
                : unavailable(name: pool.name, uuid: pool.guid, because: "pool \(pool.name) is \(pool.health)")
        }
    }

    /// `pool`, `pool/dataset` or `pool/dataset@snapshot` (its dataset), or a path inside a
    /// mounted dataset. A name of a pool that is not imported, or of a dataset that does
    /// not exist, is bad input with zfs's own reason.
    public func filesystem(containing path: String) throws -> Filesystem {
        if path.hasPrefix("/") { return try filesystem(mountedAt: path) }
        guard let pool = try pools.value({ try readPools() }).first(where: { $0.name == ZFSName.pool(of: path) }) else {
            throw UsageError("\(path): no such file or directory, and no imported ZFS pool of that name")
        }
        guard pool.isReadable else { throw RuntimeError("\(path): pool \(pool.name) is \(pool.health)") }
        let dataset = String(ZFSName.dataset(of: path))
        do {
            _ = try tool.output(["zfs", "list", "-H", "-o", "name", path])
        } catch let failure as ZFSCommandFailure where failure.isNoSuchDataset {
            throw UsageError(failure.reason)
        }
        return filesystem(pool, root: dataset)
    }

    /// A ZFS name rather than a path: `pool/…` of an imported pool, certainly; a name with
    /// `@` of no imported pool, or, where the pools cannot be read (no `zfs`, a daemon
    /// that does not answer), a relative name that is no file, if no other backend takes
    /// it (LVM's `vg0/pool`): its error then says why.
    public func claims(_ name: String) -> NameClaim {
        // The first byte, not hasPrefix: every named path is asked.
        guard let first = name.utf8.first, first != UInt8(ascii: "/") else { return .no }
        guard let known = try? pools.value({ try readPools() }) else {
            return name.contains("@") || !Files.exists(name) ? .ifNothingElse : .no
        }
        if known.contains(where: { $0.name == ZFSName.pool(of: name) }) { return .yes }
        return name.contains("@") ? .ifNothingElse : .no
    }

    public func locate(_ path: String, among filesystems: [Filesystem]) -> VolumeLocation? { nil }

    public func resolvedPath(_ path: String) -> String? { realPath(path) }
    public var workingDirectory: String { Files.workingDirectory }

    /// The dataset mounted deepest along `path`, from the mount table.
    private func filesystem(mountedAt path: String) throws -> Filesystem {
        let resolved = realPath(path) ?? path
        let mounts = try mountTable.mounts().filter { ZFSMounts.isZFS($0) && !$0.source.contains("@") }
        let holding = mounts.filter { mount in
            mount.mountpoint == "/" || resolved == mount.mountpoint || resolved.hasPrefix(mount.mountpoint + "/")
        }
        guard let mount = holding.max(by: { $0.mountpoint.utf8.count < $1.mountpoint.utf8.count }) else {
            throw RuntimeError("\(path) is not on a mounted ZFS dataset")
        }
        return try filesystem(containing: mount.source)
    }

    private func filesystem(_ pool: ZFSCommandOutput.Pool, root: String) -> Filesystem {
        Filesystem(
            kind: .zfs, uuid: root == pool.name ? pool.guid : pool.guid + ":" + root, label: pool.name, devices: [],
            mounts: [FilesystemMount(mountpoint: root, subvolumePath: root, subvolumeID: 0)])
    }

    private func unavailable(name: String, uuid: String, because reason: String) -> Filesystem {
        pools.markUnavailable(uuid, reason)
        return Filesystem(
            kind: .zfs, uuid: uuid, label: name, devices: [],
            mounts: [FilesystemMount(mountpoint: name, subvolumePath: name, subvolumeID: 0)])
    }

    func readPools() throws -> [ZFSCommandOutput.Pool] {
        try ZFSCommandOutput.pools(tool.output(["zpool", "list", "-H", "-o", "name,guid,health"]))
    }

    static func reason(_ error: any Error) -> String {
        (error as? ZFSCommandFailure)?.reason ?? (error as? any ReportableError)?.message ?? "\(error)"
    }

    // MARK: listing

    public func subvolumes(of filesystem: Filesystem, sizes: SizeMode) throws -> VolumeListing {
        if let reason = pools.unavailableReason(filesystem.uuid) { throw FilesystemUnavailable(reason) }
        let pool = filesystem.label ?? String(ZFSName.pool(of: filesystem.mountpoint))
        let root = filesystem.mounts.first?.subvolumePath ?? pool
        // The dataset named and those below it; the pool's other datasets only for their
        // origins (a clone elsewhere keeps a snapshot here) and znapzend's format.
        var datasets = try list(["-r", root])
        let facts = try datasetFacts(in: pool)
        var named: [String: Int] = [:]
        for index in datasets.indices where datasets[index].kind != .snapshot { named[datasets[index].name] = index }
        for fact in facts {
            if let index = named[fact.name] {
                datasets[index].znapzendFormat = fact.znapzendFormat
            } else if let origin = fact.origin {
                var clone = ZFSDataset(name: fact.name, kind: .filesystem, creation: Date(timeIntervalSince1970: 0))
                clone.origin = origin
                datasets.append(clone)
            }
        }
        let volumes = try ZFSListing(backend: self, datasets: datasets).volumes(within: root)
        var listing = VolumeListing(filesystem: filesystem, subvolumes: volumes, sizes: .none)
        listing.ownerFacts = ZFSListing.ownerFacts(datasets: datasets, timeZone: timeZone)
        return listing
    }

    /// A dataset is never a snapshot, whatever an owner made of its name; the replication
    /// bases are the owners' (syncoid's, zrepl's) newest common snapshots.
    public func finishListing(_ listing: inout VolumeListing, sizes: SizeMode) throws {
        for index in listing.subvolumes.indices where listing.subvolumes[index].zfs == nil {
            listing.subvolumes[index].isSnapshot = false
        }
        ZFSReplicationBases.mark(&listing.subvolumes)
        // ZFS keeps every snapshot's figures: nothing to scan, nothing to wait for.
        if sizes != .none { listing.sizes = .quota }
    }

    /// Every dataset of the pool with its origin and znapzend's format: no sizes, so no
    /// `-p`, and no snapshots, so a call zfs-fuse answers at once.
    func datasetFacts(in pool: String) throws -> [ZFSCommandOutput.DatasetFacts] {
        try ZFSCommandOutput.datasetFacts(
            tool.output([
                "zfs", "list", "-H", "-t", "filesystem,volume", "-o", ZFSCommandOutput.datasetColumns, "-r", pool,
            ]))
    }

    /// The datasets and snapshots `arguments` name (`-r POOL`, or snapshot names), with the
    /// properties the dialect has.
    func list(_ arguments: [String]) throws -> [ZFSDataset] {
        let dialect = try tool.currentDialect()
        let properties = dialect.listedProperties
        if dialect.listParsable {
            let text = try tool.output(
                [
                    "zfs", "list", "-H", "-p", "-t", "filesystem,volume,snapshot", "-o",
                    properties.joined(separator: ","),
                ]
                    + arguments)
            return try ZFSListOutput.parseList(text, columns: properties)
        }
        let text = try tool.output(
            ["zfs", "get", "-H", "-p", "-o", "name,property,value", properties.dropFirst().joined(separator: ",")]
                + arguments)
        return try ZFSListOutput.parseGet(text)
    }

    /// Runs `make` once per run and keeps its answer: the pools do not change under a run.
    final class PoolCache: Sendable {
        private let state = Mutex<(pools: Result<[ZFSCommandOutput.Pool], any Error>?, down: [String: String])>(
            (nil, [:]))

        func value(_ make: () throws -> [ZFSCommandOutput.Pool]) throws -> [ZFSCommandOutput.Pool] {
            if let known = state.withLock({ $0.pools }) { return try known.get() }
            let made = Result { try make() }
            state.withLock { $0.pools = made }
            return try made.get()
        }

        func markUnavailable(_ uuid: String, _ reason: String) { state.withLock { $0.down[uuid] = reason } }
        func unavailableReason(_ uuid: String) -> String? { state.withLock { $0.down[uuid] } }
    }
}
