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
        on filesystem: Filesystem, receivedFrom sent: Set<SubvolumeUUID>, withUUIDs sources: Set<SubvolumeUUID>
    ) throws -> VolumeListing {
        guard isRoot else { return try subvolumes(of: filesystem, sizes: .none) }
        let directory = try roots.directory(of: filesystem)
        let search = TreeSearch(directory)
        let (keys, sorted) = chainKeys.keys(receivedFrom: sent, withUUIDs: sources)
        let ids: Set<UInt64>
        do {
            ids = try UUIDTree.ids(under: keys, sorted: sorted, with: search)
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

/// The UUID tree keys of the last chain lookup, as a set and in order. A listing asks
/// every other mounted btrfs with the same snapshots' UUIDs, and sorting ten thousand
/// keys again for each filesystem cost more than searching it; the same sets compare
/// equal at once.
final class ChainKeys: @unchecked Sendable {
    typealias Keys = (set: Set<TreeSearch.Key>, sorted: [TreeSearch.Key])
    private let lock = Lock()
    private var last: (sent: Set<SubvolumeUUID>, sources: Set<SubvolumeUUID>, keys: Keys)?

    func keys(receivedFrom sent: Set<SubvolumeUUID>, withUUIDs sources: Set<SubvolumeUUID>) -> Keys {
        lock.lock(); defer { lock.unlock() }
        if let last, last.sent == sent, last.sources == sources { return last.keys }
        let keys = Set(
            sent.compactMap { UUIDTree.searchKey($0, type: UUIDTree.receivedSubvolume) }
                + sources.compactMap { UUIDTree.searchKey($0, type: UUIDTree.subvolume) })
        last = (sent, sources, (keys, keys.sorted()))
        return last!.keys
    }
}
