import CarveCore

import Glibc

/// Which inodes were directories in the trees read so far, per lineage (a subvolume
/// and its snapshots, which share inode numbers), so the next tree of the lineage can
/// be read around their directory entries.
///
/// The tree search cannot filter item types, and directory entries (DIR_ITEM 84 and
/// DIR_INDEX 96, one pair per name) are a third or more of a tree's items. Every key
/// of the range (inode, 84, 0)...(inode, 107, max) sorts below the inode's first file
/// extent item (type 108) and holds no file extent item whatever the inode is, so
/// leaving that range out for any inode is exact: a wrong hint costs one more ioctl,
/// never a reference. Only the estimate of the tree's size needs the skipped entries:
/// it takes the directory's size here (btrfs counts each name twice in i_size) times
/// the leaf bytes per size byte its entries took when they were last read.
final class DirectoryHints: @unchecked Sendable {
    /// A directory of the last tree read and the leaf bytes its entries took per
    /// byte of its i_size there, to estimate them when they are left out.
    struct Directory: Equatable {
        var id: UInt64
        var leafBytesPerSizeByte: Double
        /// The leaf bytes its entries took there, read or estimated.
        var entryLeafBytes: UInt64 = 0

        /// Leaving entries out costs one more search (a syscall and a descent from the
        /// root); reading a few costs less. A quarter of a 16 KiB leaf: about 40 names.
        static let worthLeavingOut: UInt64 = 4096
        var isWorthLeavingOut: Bool { entryLeafBytes >= Self.worthLeavingOut }
    }

    private let lock = Lock()
    private var byLineage: [SubvolumeUUID: [Directory]] = [:]

    init(_ known: [SubvolumeUUID: [Directory]] = [:]) { byLineage = known }

    /// Every lineage's hints, to keep for the next run.
    var all: [SubvolumeUUID: [Directory]] {
        lock.lock(); defer { lock.unlock() }
        return byLineage
    }

    /// The directories to read around in a tree of `lineage`, ascending.
    func directories(in lineage: SubvolumeUUID?) -> [Directory] {
        guard let lineage else { return [] }
        lock.lock(); defer { lock.unlock() }
        return byLineage[lineage] ?? []
    }

    /// After a tree of `lineage` was read: those of its directories whose entries took
    /// enough room to be worth a search of their own replace the lineage's hints, so
    /// inodes that stopped being directories stop costing calls.
    func learn(_ directories: [Directory], in lineage: SubvolumeUUID?) {
        guard let lineage else { return }
        let worthIt = directories.filter(\.isWorthLeavingOut)
        lock.lock(); defer { lock.unlock() }
        byLineage[lineage] = worthIt
    }
}
