import CarveCore
#if canImport(Glibc)
import Glibc
#endif

extension BtrfsSnapshotBackend {
    /// The subvolumes of `filesystem` received from the snapshots `sent`, and those whose
    /// own UUID is in `sources`: their ids from the UUID tree (`UUIDTree.ids(under:)`),
    /// then the root items of those few, so a mounted backup disk of ten thousand
    /// snapshots is not listed whole for them. Without root, or on a filesystem without
    /// a UUID tree, every subvolume is listed instead.
    public func chainRelatives(
        on filesystem: Filesystem, receivedFrom sent: [SubvolumeUUID], withUUIDs sources: [SubvolumeUUID]
    ) throws -> VolumeListing {
        guard isRoot else { return try subvolumes(of: filesystem, sizes: .none) }
        let directory = try roots.directory(of: filesystem)
        let search = TreeSearch(directory)
        let keys = chainKeys.keys(receivedFrom: sent, withUUIDs: sources)
        let ids: Set<UInt64>
        do {
            ids = try UUIDTree.ids(under: keys, with: search)
        } catch let error as SystemCallError where error.errno == ENOENT {
            return try subvolumes(of: filesystem, sizes: .none)
        }
        var found = ids.isEmpty ? [] : try RootTree(directory: directory).subvolumes(ids: ids)
        let reach = MountReach(filesystem)
        for index in found.indices {
            found[index].mountpoints = reach.mountpoints(ofSubvolume: found[index].id, path: found[index].path)
            found[index].mountedPath = reach.mountedPath(
                ofTopLevelPath: found[index].path, besideItsOwnMounts: !found[index].mountpoints.isEmpty)
        }
        return VolumeListing(filesystem: filesystem, subvolumes: found, sizes: .none)
    }
}

/// The UUID tree keys of the last chain lookup, in order and each once. A listing asks
/// every other mounted btrfs with the same snapshots' UUIDs, and sorting ten thousand
/// keys again for each filesystem cost more than searching it; the same lists compare
/// equal at once (one array's storage, handed on).
final class ChainKeys: @unchecked Sendable {
    private let lock = Lock()
    private var last: (sent: [SubvolumeUUID], sources: [SubvolumeUUID], keys: [TreeSearch.Key])?

    func keys(receivedFrom sent: [SubvolumeUUID], withUUIDs sources: [SubvolumeUUID]) -> [TreeSearch.Key] {
        lock.lock(); defer { lock.unlock() }
        if let last, last.sent == sent, last.sources == sources { return last.keys }
        var keys = sent.compactMap { UUIDTree.searchKey($0, type: UUIDTree.receivedSubvolume) }
        keys += sources.compactMap { UUIDTree.searchKey($0, type: UUIDTree.subvolume) }
        keys.sort()
        keys = Self.withoutRepeats(keys)
        last = (sent, sources, keys)
        return keys
    }

    /// `sorted` with each run of equal keys kept once.
    static func withoutRepeats(_ sorted: [TreeSearch.Key]) -> [TreeSearch.Key] {
        var kept: [TreeSearch.Key] = []
        kept.reserveCapacity(sorted.count)
        for key in sorted where kept.last != key { kept.append(key) }
        return kept
    }
}
