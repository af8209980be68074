import CBtrfsUtil
import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// Deletion through libbtrfsutil. These primitives check no safety rule themselves:
/// only `SnapshotDeleter.delete` calls them, after checking `currentState`, and it takes
/// the kernel's refusals as the rules' verdicts.
extension BtrfsSnapshotBackend {
    /// Only the mounts are read here (the table once per change, `MountIndexes`).
    /// Whether it is still there, the default subvolume or holds nested subvolumes, the
    /// kernel answers inside the deletion call, under its own locks (see
    /// `deleteSubvolume`). Its id still names the subvolume the plan listed: the listing
    /// opened the filesystem (`roots`) and holds it open, and btrfs hands a freed id out
    /// again only to a filesystem mounted afresh.
    public func currentState(of subvolume: Volume, on filesystem: Filesystem) throws -> Volume? {
        let index = try mountIndexes.index(of: filesystem, in: mountTable)
        let mountpoints = index.mountpoints[subvolume.id] ?? []
        let inside = index.below.inside(subvolume.mountedPath, mountpoints)
        // Copied once, when all is known: asked of the copy while it was filled, the
        // subvolume (some thirty references) was copied again, per snapshot deleted.
        var current = subvolume
        current.mountpoints = mountpoints
        current.mountsInside = inside
        return current
    }

    /// The generation and read-only flag read again (one search of the root tree), then
    /// the changed leaves as the listing reads them (`CloneChanges`). A subvolume gone
    /// meanwhile comes back unchanged: its deletion then finds it gone.
    public func refreshingCloneState(of subvolume: Volume, on filesystem: Filesystem) throws -> Volume {
        let root = try roots.directory(of: filesystem)
        var info = btrfs_util_subvolume_info()
        do {
            try BtrfsUtilCall.check(
                btrfs_util_subvolume_info_fd(root.fd, subvolume.id, &info),
                "cannot read subvolume \(subvolume.id) on \(filesystem.mountpoint)", "btrfs_util_subvolume_info_fd")
        } catch let error as SystemCallError where error.errno == ENOENT {
            return subvolume
        }
        var listing = VolumeListing(filesystem: filesystem, subvolumes: [subvolume], sizes: .none)
        listing.subvolumes[0].readOnly = info.flags & 1 != 0 // BTRFS_ROOT_SUBVOL_RDONLY
        listing.subvolumes[0].generation = info.generation
        CloneChanges.mark(&listing, directory: isRoot ? root : nil)
        return listing.subvolumes[0]
    }

    /// By id: the id is exactly what `currentState` checked, where a path could have
    /// been renamed or swapped since. Only `--recursive` goes by path, because
    /// libbtrfsutil deletes nested subvolumes only below a path. The kernel refuses the
    /// default subvolume (EPERM) and one with nested subvolumes (ENOTEMPTY) under its
    /// own locks, which no look beforehand can match, and saves a search per snapshot.
    public func deleteSubvolume(_ subvolume: Volume, on filesystem: Filesystem, recursive: Bool) throws {
        do {
            try destroy(subvolume, on: filesystem, recursive: recursive)
        } catch let error as SystemCallError {
            throw refusal(of: subvolume, on: filesystem, recursive: recursive, from: error)
        }
    }

    private func destroy(_ subvolume: Volume, on filesystem: Filesystem, recursive: Bool) throws {
        if recursive && subvolume.hasNestedSubvolumes {
            guard let path = subvolume.mountedPath, reaches(path, subvolume: subvolume.id) else {
                throw RuntimeError("its nested subvolumes are deleted only by path, and no mount reaches it")
            }
            try BtrfsUtilCall.check(
                ByteText.withCString(path) {
                    btrfs_util_delete_subvolume($0, Int32(BTRFS_UTIL_DELETE_SUBVOLUME_RECURSIVE))
                },
                "cannot delete snapshot \(path)", "btrfs_util_delete_subvolume")
            return
        }
        let root = try roots.directory(of: filesystem)
        try BtrfsUtilCall.check(
            btrfs_util_delete_subvolume_by_id_fd(root.fd, subvolume.id),
            "cannot delete snapshot \(subvolume.mountedPath ?? "<FS_TREE>/" + subvolume.path)",
            "btrfs_util_delete_subvolume_by_id_fd")
    }

    /// Commits, waits for the commit, then polls the cleaner's list of deleted
    /// subvolumes; a last commit makes the freed extents count as free.
    public func waitForCleanup(of ids: [UInt64], on filesystem: Filesystem) throws {
        let root = try roots.directory(of: filesystem)
        var transaction: UInt64 = 0
        try BtrfsUtilCall.check(
            btrfs_util_start_sync_fd(root.fd, &transaction), "cannot commit \(root.path)", "btrfs_util_start_sync_fd")
        try BtrfsUtilCall.check(
            btrfs_util_wait_sync_fd(root.fd, transaction), "cannot commit \(root.path)", "btrfs_util_wait_sync_fd")
        let waiting = Set(ids)
        while try !waiting.isDisjoint(with: deletedSubvolumes(on: root)) {
            usleep(100_000)
        }
        try BtrfsUtilCall.check(btrfs_util_sync_fd(root.fd), "cannot commit \(root.path)", "btrfs_util_sync_fd")
    }

    public func spaceUsage(of filesystem: Filesystem) throws -> SpaceUsage {
        try BtrfsSpace.usage(of: filesystem.mountpoint)
    }

    // MARK: the current state

    /// Why the kernel refused a deletion, when it refused it for a reason it keeps to
    /// itself; else `error`. Run as root (deleting needs it), btrfs answers EPERM for the
    /// default subvolume, a subvolume a `btrfs send` is reading, and one holding an active
    /// swap file: the default subvolume and /proc/swaps are read to tell them apart.
    private func refusal(
        of subvolume: Volume, on filesystem: Filesystem, recursive: Bool, from error: SystemCallError
    ) -> any Error {
        switch error.errno {
        case ENOTEMPTY where !recursive: return RefusedByFilesystem(.nestedSubvolumes)
        case EBUSY: return RefusedByFilesystem(.mounted([]))
        case EPERM where isRoot:
            let root = try? roots.directory(of: filesystem)
            let defaultID = root.flatMap { try? BtrfsQuery.defaultSubvolume($0.fd, path: $0.path) }
            if defaultID == subvolume.id { return RefusedByFilesystem(.defaultSubvolume) }
            if let file = activeSwapFile(in: subvolume) { return RefusedByFilesystem(.activeSwapFile(file)) }
            return RefusedByFilesystem(.beingSent)
        default: return error
        }
    }

    /// An active swap file below the subvolume's mounted path, from /proc/swaps.
    private func activeSwapFile(in subvolume: Volume) -> String? {
        guard let path = subvolume.mountedPath,
            let files = Files.text(host.swaps).flatMap({ try? SwapList.filePaths($0) })
        else { return nil }
        return files.first { $0.hasPrefix(path.hasSuffix("/") ? path : path + "/") }
    }

    /// True when `path` names subvolume `id` with no symlink on the way, so deleting
    /// by path cannot hit another subvolume.
    private func reaches(_ path: String, subvolume id: UInt64) -> Bool {
        ByteText.withCString(path) { cPath in
            guard let resolved = realpath(cPath, nil) else { return false }
            defer { free(resolved) }
            guard strcmp(resolved, cPath) == 0, btrfs_util_is_subvolume(cPath) == BTRFS_UTIL_OK else { return false }
            var found: UInt64 = 0
            return btrfs_util_subvolume_id(cPath, &found) == BTRFS_UTIL_OK && found == id
        }
    }

    private func deletedSubvolumes(on root: FileDescriptor) throws -> Set<UInt64> {
        var ids: UnsafeMutablePointer<UInt64>?
        var count = 0
        try BtrfsUtilCall.check(
            btrfs_util_deleted_subvolumes_fd(root.fd, &ids, &count), "cannot read the cleaner's queue on \(root.path)",
            "btrfs_util_deleted_subvolumes_fd")
        defer { free(ids) }
        guard let ids else { return [] }
        return Set(UnsafeBufferPointer(start: ids, count: count))
    }
}

/// One open directory per filesystem, at its first mount, for the `_fd` calls: a
/// deletion run then opens nothing per snapshot.
final class FilesystemRoots: @unchecked Sendable {
    private let lock = Lock()
    private var open = ByFilesystem<FileDescriptor>()

    func directory(of filesystem: Filesystem) throws -> FileDescriptor {
        lock.lock()
        defer { lock.unlock() }
        if let handle = open.value(for: filesystem.uuid) { return handle }
        let handle = try FileDescriptor(directory: filesystem.mountpoint)
        open.set(handle, for: filesystem.uuid)
        return handle
    }
}

/// libbtrfsutil's error codes as carve errors: the call's name and errno, which
/// libbtrfsutil leaves set.
enum BtrfsUtilCall {
    /// `context` is made only for an error: a deletion run checks a thousand successes.
    static func check(_ result: btrfs_util_error, _ context: @autoclosure () -> String, _ call: String) throws {
        guard result != BTRFS_UTIL_OK else { return }
        let code: Int32 =
            result == BTRFS_UTIL_ERROR_SUBVOLUME_NOT_FOUND
            ? ENOENT
            : result == BTRFS_UTIL_ERROR_NOT_BTRFS ? ENOTTY : errno
        throw SystemCallError(context(), call: call, errno: code)
    }
}
