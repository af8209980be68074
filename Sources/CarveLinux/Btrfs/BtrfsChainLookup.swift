import CarveCore
#if canImport(Glibc)
import Glibc
#endif

extension BtrfsSnapshotBackend {
    /// The subvolumes of `filesystem` received from the snapshots `sent`, and those whose
    /// own UUID is in `sources`: a UUID tree search per UUID, then the root items of
    /// those few, so a mounted backup disk of ten thousand snapshots costs a search per
    /// listed snapshot rather than a read of all of its own. Without root, or on a
    /// filesystem without a UUID tree, every subvolume is listed instead.
    public func chainRelatives(
        on filesystem: Filesystem, receivedFrom sent: Set<String>, withUUIDs sources: Set<String>
    ) throws -> VolumeListing {
        guard isRoot else { return try subvolumes(of: filesystem, sizes: .none) }
        let directory = try roots.directory(of: filesystem)
        let search = TreeSearch(directory, bufferSize: 4 << 10)
        var ids = Set<UInt64>()
        do {
            for uuid in sent {
                ids.formUnion(try UUIDTree.ids(of: uuid, type: UUIDTree.receivedSubvolume, with: search))
            }
            for uuid in sources { ids.formUnion(try UUIDTree.ids(of: uuid, type: UUIDTree.subvolume, with: search)) }
        } catch let error as SystemCallError where error.errno == ENOENT {
            return try subvolumes(of: filesystem, sizes: .none)
        }
        var found = ids.isEmpty ? [] : try RootTree(directory: directory).subvolumes(ids: ids)
        for index in found.indices {
            found[index].mountpoints = filesystem.mountpoints(ofSubvolume: found[index].id, path: found[index].path)
            found[index].mountedPath = filesystem.mountedPath(
                ofTopLevelPath: found[index].path, besideItsOwnMounts: !found[index].mountpoints.isEmpty)
        }
        return VolumeListing(filesystem: filesystem, subvolumes: found, sizes: .none)
    }
}
