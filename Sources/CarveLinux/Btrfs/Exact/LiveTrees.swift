import CBtrfsUtil
import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// The writable trees of a scan as the kernel holds them now: BTRFS_IOC_GET_SUBVOL_INFO
/// on a directory of each reads its root item in memory, whose ctransid moves with every
/// change the moment it is made (btrfs_update_inode), while its generation moves when
/// the change is committed. A tree whose ctransid is past its generation is being
/// changed in an open transaction, whose inode updates may still wait in memory (delayed
/// inodes): its leaves do not yet show them, so it is read whole (`LiveTree.isChanging`).
/// A tree no mount reaches has no entry: it is read whole each run, as before.
final class LiveTrees: @unchecked Sendable {
    struct LiveTree: Equatable {
        var uuid: SubvolumeUUID
        /// The last committed generation.
        var generation: UInt64
        /// The transaction of the last change, committed or not.
        var changed: UInt64
        var isChanging: Bool { changed > generation }
    }

    private var directories: [UInt64: FileDescriptor] = [:]
    /// As read when the scan began.
    private(set) var atStart: [UInt64: LiveTree] = [:]

    /// Opens each of `writable` (by id, the path of its root directory) and reads it.
    init(_ writable: [UInt64: String]) {
        for (id, path) in writable {
            guard let directory = try? FileDescriptor(directory: path), let tree = Self.read(directory, id: id) else {
                continue
            }
            directories[id] = directory
            atStart[id] = tree
        }
    }

    /// Each tree's committed generation now (after the scan), nil for one that changed
    /// identity or can no longer be read.
    func generationsNow() -> [UInt64: UInt64] {
        var now: [UInt64: UInt64] = [:]
        for (id, directory) in directories {
            guard let tree = Self.read(directory, id: id), tree.uuid == atStart[id]?.uuid else { continue }
            now[id] = tree.generation
        }
        return now
    }

    /// The root item of the tree `directory` lies in, when that tree is `id`.
    private static func read(_ directory: FileDescriptor, id: UInt64) -> LiveTree? {
        var info = btrfs_ioctl_get_subvol_info_args()
        // Success may come back as 1: the kernel passes on its search for the subvolume's
        // back reference, which found the item after the key it asked for, as it should.
        guard carve_ioctl_ptr(directory.fd, carve_BTRFS_IOC_GET_SUBVOL_INFO(), &info) >= 0, info.treeid == id else {
            return nil
        }
        return LiveTree(uuid: subvolumeUUID(info.uuid) ?? "", generation: info.generation, changed: info.ctransid)
    }
}
