import CBtrfsUtil
import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// libbtrfsutil's subvolume iterator, destroyed in deinit. After `next` fails the
/// iterator is finished for good: libbtrfsutil 1.2 crashes when `next` is called
/// again after an error, so this class never does.
final class SubvolumeIterator {
    private var iterator: OpaquePointer?
    private var finished = false
    private let context: String
    /// The iterator reads through this descriptor on every `next`: it must outlive the iterator.
    private let directory: FileDescriptor

    /// Subvolumes below `top` (5: every subvolume; 0: below the subvolume of `directory`,
    /// the unprivileged mode that skips what the caller cannot read).
    init(_ directory: FileDescriptor, top: UInt64) throws {
        context = "cannot list the subvolumes of \(directory.path)"
        self.directory = directory
        try BtrfsUtilCall.check(
            btrfs_util_create_subvolume_iterator_fd(directory.fd, top, 0, &iterator), context,
            "btrfs_util_create_subvolume_iterator_fd")
    }

    deinit { if let iterator { btrfs_util_destroy_subvolume_iterator(iterator) } }

    /// The next subvolume's path (relative to `top`) and info, or nil at the end.
    func next() throws -> (path: String, info: btrfs_util_subvolume_info)? {
        guard !finished, let iterator else { return nil }
        var path: UnsafeMutablePointer<CChar>?
        var info = btrfs_util_subvolume_info()
        let result = btrfs_util_subvolume_iterator_next_info(iterator, &path, &info)
        defer { free(path) }
        if result == BTRFS_UTIL_ERROR_STOP_ITERATION {
            finish()
            return nil
        }
        if result != BTRFS_UTIL_OK {
            let saved = errno
            finish()
            errno = saved
            try BtrfsUtilCall.check(result, context, "btrfs_util_subvolume_iterator_next_info")
        }
        return (path.map { ByteText.decode(cString: $0) } ?? "", info)
    }

    private func finish() {
        finished = true
        if let iterator { btrfs_util_destroy_subvolume_iterator(iterator) }
        iterator = nil
    }
}

extension Volume {
    /// A subvolume as libbtrfsutil describes it, before classification.
    init(path: String, info: btrfs_util_subvolume_info) {
        let readOnlyFlag: UInt64 = 1 << 0 // BTRFS_ROOT_SUBVOL_RDONLY
        let otime = Double(info.otime.tv_sec) + Double(info.otime.tv_nsec) / 1e9
        self.init(
            id: info.id, parentID: info.parent_id, path: path, uuid: subvolumeUUID(info.uuid) ?? "",
            parentUUID: subvolumeUUID(info.parent_uuid), receivedUUID: subvolumeUUID(info.received_uuid),
            generation: info.generation, created: Date(timeIntervalSince1970: otime),
            readOnly: info.flags & readOnlyFlag != 0, isSnapshot: false
        )
        createdGeneration = info.otransid
    }
}
