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

    /// Trees read at once: the tree search is kernel work, one core per tree.
    static let workers = 2

    /// One tree's file extent references, read by one worker.
    struct TreeReading {
        var references: [ExtentKey] = []
        var inlineBytes: UInt64 = 0
        var hasInline = false
        var leafBytes: UInt64 = 0
        var fileExtents = 0
        var malformed = 0
        var bytesRead: UInt64 = 0
        var items = 0
        /// Deleted since it was listed: its references are on their way out with it.
        var gone = false
        var error: (any Error)?
    }

    /// Scans `subvolumes` (the top level is added) of the filesystem mounted at `mountpoint`.
    /// Each worker reads the next tree not yet taken; the readings are merged into the map
    /// in id order as they come, so memory holds the map plus one reading per worker,
    /// and the map is the same whichever worker was faster.
    func scan(subvolumes ids: [UInt64], progress: (@Sendable (ExtentScanProgress) -> Void)? = nil) throws -> ExactSizes {
        guard isRoot else { throw NeedsRootError("reading exact sizes (--sizes exact)") }
        let started = Date()
        let directory = try DirectoryHandle(mountpoint)
        let nodeSize = try TreeSearch.nodeSize(directory)
        let trees = Array(Set(ids + [Self.topLevel])).sorted()
        let merge = OrderedMerge(trees: trees, nodeSize: nodeSize, progress: progress)
        let searches = (0..<Self.workers).map { _ in TreeSearch(directory) }
        DispatchQueue.concurrentPerform(iterations: min(Self.workers, trees.count)) { worker in
            while let index = merge.take() {
                merge.deliver(index, Self.read(tree: trees[index], with: searches[worker]))
            }
        }
        let result = try merge.result()
        if result.malformed > 0 {
            throw RuntimeError("\(mountpoint): \(result.malformed) file extent items could not be read; exact sizes would be wrong")
        }
        let report = ExtentScanReport(
            subvolumes: trees.count, items: result.items, fileExtentItems: result.fileExtents,
            bytesRead: result.bytesRead, seconds: Date().timeIntervalSince(started))
        return ExactSizes(map: result.map, scan: report, nodeSize: nodeSize, treeBytes: result.treeBytes)
    }
}

extension ExtentScanner {
    /// Every file extent item of one tree; holes are left out here already.
    static func read(tree: UInt64, with search: TreeSearch) -> TreeReading {
        var reading = TreeReading()
        reading.references.reserveCapacity(1 << 14)
        let (bytesBefore, itemsBefore) = (search.bytesRead, search.items)
        do {
            try search.forEachItem(tree: tree, firstObjectID: firstFreeObjectID) { item in
                reading.leafBytes += ExactSizes.leafBytes(itemSize: item.data.count)
                guard item.type == fileExtentType else { return }
                reading.fileExtents += 1
                switch FileExtent(item.data) {
                case .onDisk(let bytenr, let bytes):
                    if bytenr != 0 { reading.references.append(ExtentKey(diskBytenr: bytenr, diskBytes: bytes)) }
                case .inline(let bytes): reading.inlineBytes += bytes; reading.hasInline = true
                case .malformed: reading.malformed += 1
                }
            }
        } catch let error as SystemCallError where error.errno == ENOENT {
            reading.gone = true
        } catch {
            reading.error = error
        }
        reading.bytesRead = search.bytesRead - bytesBefore
        reading.items = search.items - itemsBefore
        return reading
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
