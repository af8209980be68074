/// How a scan of the subvolume trees went: what it read and how long it took.
public struct ExtentScanReport: Sendable, Hashable, Codable {
    public var subvolumes: Int
    /// Items returned by the tree search, of every type.
    public var items: Int
    /// File extent items among them.
    public var fileExtentItems: Int
    /// Bytes the tree search returned (item headers and items).
    public var bytesRead: UInt64
    public var seconds: Double
    /// Read-only trees taken from the cache rather than read (`ExactSizesCache`).
    public var cachedSubvolumes: Int
    /// Trees among `subvolumes` read only where they changed since the cache's
    /// writable tree states (`IncrementalPlan`).
    public var changedSubvolumes: Int = 0
    public init(
        subvolumes: Int = 0, items: Int = 0, fileExtentItems: Int = 0, bytesRead: UInt64 = 0, seconds: Double = 0,
        cachedSubvolumes: Int = 0, changedSubvolumes: Int = 0
    ) {
        self.subvolumes = subvolumes; self.items = items; self.fileExtentItems = fileExtentItems
        self.bytesRead = bytesRead; self.seconds = seconds; self.cachedSubvolumes = cachedSubvolumes
        self.changedSubvolumes = changedSubvolumes
    }
}

/// Where a scan is, for a progress bar.
public struct ExtentScanProgress: Sendable, Hashable {
    public var subvolumesDone: Int
    public var subvolumesTotal: Int
    public var bytesRead: UInt64
    public init(subvolumesDone: Int, subvolumesTotal: Int, bytesRead: UInt64) {
        self.subvolumesDone = subvolumesDone; self.subvolumesTotal = subvolumesTotal; self.bytesRead = bytesRead
    }
}

/// Who is told of a scan's progress: the CLI sets a handler around a command that
/// may scan, so the backends need no extra parameter.
public enum ExtentScanObserver {
    @TaskLocal public static var current: (@Sendable (ExtentScanProgress) -> Void)?
    /// Set by Ctrl-C on a terminal: the scan stops after the trees being read and
    /// throws `ScanInterrupted`; nothing is written, the cache included.
    @TaskLocal public static var cancellation: CancellationFlag?
}

/// A scan stopped by Ctrl-C (`ExtentScanObserver.cancellation`).
public struct ScanInterrupted: ReportableError, Equatable {
    public init() {}
    public var message: String { "interrupted while reading exact sizes: nothing was changed" }
    public var exitStatus: ExitStatus { .interrupted }
}

/// What deleting a set of subvolumes together gives back: data exact, metadata
/// an estimate stated apart.
public struct SetReclaim: Sendable, Hashable, Codable {
    /// On-disk bytes of the data extents only the set references: exact.
    public var data: UInt64
    /// Tree blocks: each deleted subvolume's root block at least (its own from the
    /// moment it was made); at most every block of their trees. An estimate.
    public var metadataAtLeast: UInt64
    public var metadataAtMost: UInt64
    /// Inline file data among that metadata (stored in tree leaves).
    public var inline: UInt64
    public init(data: UInt64, metadataAtLeast: UInt64, metadataAtMost: UInt64, inline: UInt64) {
        self.data = data; self.metadataAtLeast = metadataAtLeast; self.metadataAtMost = metadataAtMost;
        self.inline = inline
    }
}

/// Exact sizes of one filesystem's subvolumes, from every subvolume's file extent items.
public struct ExactSizes: Sendable, Hashable, Codable {
    public var map: ExtentMap
    public var scan: ExtentScanReport
    /// The filesystem's tree block size.
    public var nodeSize: UInt64
    /// Per subvolume id: an upper estimate of its tree's size in bytes, from the
    /// bytes of its items (leaves are at most full; the nodes above them are added).
    public var treeBytes: [UInt64: UInt64]
    /// What became of the cache, for --verbose (a file found unusable and rebuilt).
    public var notes: [String] = []

    public init(map: ExtentMap, scan: ExtentScanReport, nodeSize: UInt64, treeBytes: [UInt64: UInt64] = [:]) {
        self.map = map; self.scan = scan; self.nodeSize = nodeSize; self.treeBytes = treeBytes
    }

    /// Leaf space an item takes (its 25-byte header plus its data), for `treeBytes`.
    @inlinable public static func leafBytes(itemSize: Int) -> UInt64 { UInt64(25 + itemSize) }

    /// An upper estimate of a tree's size from the leaf bytes of its items: leaves
    /// about half full after splits, plus one node per 100 leaves, plus the root.
    public static func treeEstimate(leafBytes: UInt64, nodeSize: UInt64) -> UInt64 {
        let usable = max(nodeSize - 101, 1)
        let leaves = (leafBytes * 2 + usable - 1) / usable
        return (leaves + leaves / 100 + 1) * nodeSize
    }

    /// What deleting `ids` together frees.
    public func reclaim(deleting ids: [UInt64]) -> SetReclaim {
        let unique = Set(ids)
        return SetReclaim(
            data: map.reclaim(deleting: unique),
            metadataAtLeast: UInt64(unique.count) * nodeSize,
            metadataAtMost: unique.reduce(0) { $0 + (treeBytes[$1] ?? nodeSize) },
            inline: unique.reduce(0) { $0 + (map.inlineBytes[$1] ?? 0) })
    }

    /// One line for stderr: what was read, how long it took, what is exact.
    public var summary: String {
        let seconds = Self.hundredths(scan.seconds)
        let cached = scan.cachedSubvolumes > 0 ? " (\(scan.cachedSubvolumes) more from the cache)" : ""
        let changed = scan.changedSubvolumes > 0 ? ", \(scan.changedSubvolumes) of them only where they changed" : ""
        return
            "exact sizes: read \(scan.fileExtentItems) file extent items (\(ByteSize.format(scan.bytesRead)) of tree items) "
            + "of \(scan.subvolumes) subvolumes\(cached)\(changed) in \(seconds)s; \(map.extentCount) data extents; "
            + "data bytes are exact, metadata is not included"
    }

    /// "0.05", "12.30": seconds to two places, rounded half up, as printf's %.2f shows them.
    static func hundredths(_ seconds: Double) -> String {
        let total = Int((max(0, seconds) * 100).rounded())
        let fraction = total % 100
        return "\(total / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

extension VolumeListing {
    /// Fills each subvolume's exclusive and referenced bytes from `exact` (data only)
    /// and keeps `exact` for set questions.
    public mutating func attach(_ exact: ExactSizes) {
        // By the map's positions: one lookup a subvolume, where tables by id made and
        // asked each cost four.
        let exclusive = exact.map.exclusiveBytesByPosition()
        let referenced = exact.map.referencedBytesByPosition()
        for index in subvolumes.indices {
            let position = exact.map.position(of: subvolumes[index].id)
            subvolumes[index].exclusive = position.map { exclusive[$0] } ?? 0
            subvolumes[index].referenced = position.map { referenced[$0] } ?? 0
        }
        self.exact = exact
        sizes = .exact
        sizeNote = nil
    }
}
