import CBtrfsUtil
import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// Tells a clone in use from an untouched writable snapshot. A snapshot's tree
/// generation moves past the transaction that created it (otransid) on any change,
/// and so does its ctransid, even when a read only updated an atime. So the leaves
/// written since (found as `btrfs subvolume find-new` finds them: a search whose
/// minimum transaction skips older nodes whole) are read, and each item changed since
/// is weighed (`CloneEvidence`): data written since, an inode created since, or one
/// whose change time says it changed after the snapshot was taken. Stops at the first.
struct CloneChanges {
    let directory: FileDescriptor

    /// Marks each plain writable snapshot written to since it was taken; without root
    /// (no tree search), any change of its generation counts, atimes included.
    static func mark(_ listing: inout VolumeListing, directory: FileDescriptor?) {
        for index in listing.subvolumes.indices {
            // Asked of the element in place: a copy of each (fat) volume cost more than the test.
            let candidate = listing.subvolumes.withUnsafeBufferPointer { volumes in
                volumes[index].isSnapshot && !volumes[index].readOnly && volumes[index].metadata.manager == .plain
                    && volumes[index].receivedUUID == nil && volumes[index].createdGeneration > 0
                    && volumes[index].generation > volumes[index].createdGeneration
            }
            guard candidate else { continue }
            let volume = listing.subvolumes[index]
            guard let directory else {
                listing.subvolumes[index].changedSinceTaken = true
                continue
            }
            // A tree carve cannot read counts as written: keeping a clone is the safe mistake.
            listing.subvolumes[index].changedSinceTaken =
                (try? CloneChanges(directory: directory).writtenSinceTaken(volume)) ?? true
        }
    }

    private struct Found: Error {}

    func writtenSinceTaken(_ volume: Volume) throws -> Bool {
        let search = TreeSearch(directory, bufferSize: 16 << 10)
        let created = volume.createdGeneration
        search.minimumTransaction = created + 1
        let taken = volume.otime.timeIntervalSince1970
        do {
            try search.forEachItem(tree: volume.id, firstObjectID: 0) { item in
                if item.type == BtrfsKey.fileExtent, item.data.count >= 8 {
                    let generation = Self.uint64(item.data, at: Int(carve_file_extent_generation.rawValue))
                    if CloneEvidence.extentWasWritten(extentGeneration: generation, snapshotGeneration: created) {
                        throw Found()
                    }
                }
                guard item.type == BtrfsKey.inodeItem, item.data.count >= Int(carve_inode_item_size.rawValue) else {
                    return
                }
                guard Self.uint64(item.data, at: Int(carve_inode_item_transid.rawValue)) > created else { return }
                let written = CloneEvidence.inodeWasWritten(
                    inodeGeneration: Self.uint64(item.data, at: Int(carve_inode_item_generation.rawValue)),
                    snapshotGeneration: created,
                    changed: Self.time(item.data, at: Int(carve_inode_item_ctime.rawValue)),
                    accessed: Self.time(item.data, at: Int(carve_inode_item_atime.rawValue)), snapshotCreated: taken)
                if written { throw Found() }
            }
        } catch is Found {
            return true
        }
        return false
    }

    private static func uint64(_ data: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        UInt64(littleEndian: data.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// A `btrfs_timespec`: seconds (le64) and nanoseconds (le32).
    private static func time(_ data: UnsafeRawBufferPointer, at offset: Int) -> Double {
        let seconds = Int64(bitPattern: uint64(data, at: offset))
        let nanoseconds = UInt32(littleEndian: data.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self))
        return Double(seconds) + Double(nanoseconds) / 1e9
    }
}
