import CarveCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Exact sizes without quotas: reads the file extent items (key type 108) of every
/// subvolume's tree, including the top level's, and builds the extent map. Every
/// subvolume must be read, snapshot or not: any reference keeps an extent alive.
/// Read-only; the tree search needs root.
struct ExtentScanner {
    static let fileExtentType: UInt32 = 108       // BTRFS_EXTENT_DATA_KEY
    static let firstFreeObjectID: UInt64 = 256    // BTRFS_FIRST_FREE_OBJECTID: inodes start here
    static let topLevel: UInt64 = 5               // BTRFS_FS_TREE_OBJECTID

    /// What one file extent item says, from its little-endian packed layout
    /// (struct btrfs_file_extent_item).
    enum FileExtent: Equatable {
        case inline(bytes: UInt64)
        /// Regular or preallocated: on disk at `diskBytenr` (0 for a hole), `diskBytes` long.
        case onDisk(diskBytenr: UInt64, diskBytes: UInt64)
        /// Too short or of an unknown type: skipped, counted as such.
        case malformed

        static let headerSize = 21   // generation, ram_bytes, compression, encryption, other_encoding, type

        init(_ item: UnsafeRawBufferPointer) {
            guard item.count >= Self.headerSize else { self = .malformed; return }
            switch item[20] {
            case 0:
                self = .inline(bytes: UInt64(item.count - Self.headerSize))
            case 1, 2:
                guard item.count >= Self.headerSize + 32 else { self = .malformed; return }
                self = .onDisk(diskBytenr: item.loadLE(at: 21), diskBytes: item.loadLE(at: 29))
            default:
                self = .malformed
            }
        }
    }

    let mountpoint: String
    let isRoot: Bool

    /// Scans `subvolumes` (the top level is added) of the filesystem mounted at `mountpoint`.
    func scan(subvolumes ids: [UInt64], progress: ((ExtentScanProgress) -> Void)? = nil) throws -> ExactSizes {
        guard isRoot else { throw NeedsRootError("reading exact sizes (--sizes exact)") }
        let started = Date()
        let directory = try DirectoryHandle(mountpoint)
        let nodeSize = try TreeSearch.nodeSize(directory)
        let search = TreeSearch(directory)
        let trees = Array(Set(ids + [Self.topLevel])).sorted()
        var map = ExtentMap(subvolumes: trees)
        var treeBytes: [UInt64: UInt64] = [:]
        var fileExtents = 0, malformed = 0
        for (done, tree) in trees.enumerated() {
            var leafBytes: UInt64 = 0
            do {
                try search.forEachItem(
                    tree: tree, firstObjectID: Self.firstFreeObjectID,
                    afterCall: { progress?(ExtentScanProgress(subvolumesDone: done, subvolumesTotal: trees.count, bytesRead: search.bytesRead)) }
                ) { item in
                    leafBytes += ExactSizes.leafBytes(itemSize: item.data.count)
                    guard item.type == Self.fileExtentType else { return }
                    fileExtents += 1
                    switch FileExtent(item.data) {
                    case .onDisk(let bytenr, let bytes): map.addReference(subvolume: tree, diskBytenr: bytenr, diskBytes: bytes)
                    case .inline(let bytes): map.addInline(subvolume: tree, bytes: bytes)
                    case .malformed: malformed += 1
                    }
                }
            } catch let error as SystemCallError where error.errno == ENOENT {
                // Deleted since it was listed: its references are on their way out with it.
                continue
            }
            treeBytes[tree] = ExactSizes.treeEstimate(leafBytes: leafBytes, nodeSize: nodeSize)
        }
        progress?(ExtentScanProgress(subvolumesDone: trees.count, subvolumesTotal: trees.count, bytesRead: search.bytesRead))
        if malformed > 0 {
            throw RuntimeError("\(mountpoint): \(malformed) file extent items could not be read; exact sizes would be wrong")
        }
        let report = ExtentScanReport(
            subvolumes: trees.count, items: search.items, fileExtentItems: fileExtents,
            bytesRead: search.bytesRead, seconds: Date().timeIntervalSince(started))
        return ExactSizes(map: map, scan: report, nodeSize: nodeSize, treeBytes: treeBytes)
    }
}

extension BtrfsSnapshotBackend {
    /// Fills the listing's sizes from a scan of every subvolume's extents.
    func attachExactSizes(to listing: inout SubvolumeListing) throws {
        let scanner = ExtentScanner(mountpoint: listing.filesystem.mountpoint, isRoot: isRoot)
        let exact = try scanner.scan(subvolumes: listing.subvolumes.map(\.id), progress: ExtentScanObserver.current)
        listing.attach(exact)
    }
}
