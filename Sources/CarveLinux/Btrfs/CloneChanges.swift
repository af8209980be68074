import CBtrfsUtil
import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// Tells a clone in use from an untouched writable snapshot. A snapshot's tree
/// generation moves past the transaction that created it (otransid) on any change,
/// and so does its ctransid, even when a read only updated an atime. So the leaves
/// written since (found as `btrfs subvolume find-new` finds them: a search whose
/// minimum transaction skips older nodes whole) are read, and the snapshot counts as
/// written to when one of their inodes changed in that time with its ctime at or
/// after the snapshot's creation: creating, removing, renaming, writing or chmod'ing
/// sets ctime, an atime update does not. Stops at the first such inode.
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
        search.minimumTransaction = volume.createdGeneration + 1
        let taken = volume.otime.timeIntervalSince1970
        do {
            try search.forEachItem(tree: volume.id, firstObjectID: 0) { item in
                guard item.type == BtrfsKey.inodeItem, item.data.count >= Int(carve_inode_item_size.rawValue) else {
                    return
                }
                let transid = UInt64(
                    littleEndian: item.data.loadUnaligned(
                        fromByteOffset: Int(carve_inode_item_transid.rawValue), as: UInt64.self))
                guard transid > volume.createdGeneration else { return }
                let ctime = Int(carve_inode_item_ctime.rawValue)
                let seconds = Int64(
                    bitPattern: UInt64(littleEndian: item.data.loadUnaligned(fromByteOffset: ctime, as: UInt64.self)))
                let nanoseconds = UInt32(
                    littleEndian: item.data.loadUnaligned(fromByteOffset: ctime + 8, as: UInt32.self))
                // The kernel's coarse clock can give a change right after the snapshot its very timestamp.
                if Double(seconds) + Double(nanoseconds) / 1e9 >= taken - 0.000_001 { throw Found() }
            }
        } catch is Found {
            return true
        }
        return false
    }
}
