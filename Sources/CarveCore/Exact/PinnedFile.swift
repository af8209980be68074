/// A snapshot as a pinned file names it: by id for the reader, by path and a short
/// label for people (filled from the listing by `PinnedFiles.naming`).
public struct SnapshotReference: Sendable, Hashable, Codable {
    public var id: UInt64
    /// Its mounted path, or `<FS_TREE>/path` when no mount reaches it.
    public var path: String
    /// snapper's CONFIG:NUMBER, a timeshift or btrbk name, else its path's last component.
    public var label: String
    public init(id: UInt64, path: String = "", label: String = "") {
        self.id = id; self.path = path; self.label = label
    }
}

/// One file whose data only a set of snapshots holds: one inode of one lineage (a
/// subvolume and its snapshots number their files alike), however often it was
/// renamed or hard linked between them.
public struct PinnedFile: Sendable, Hashable, Codable {
    public var inode: UInt64
    /// On-disk bytes deleting the set frees for this file (compressed size when compressed).
    public var bytes: UInt64
    /// The data extents those bytes are.
    public var extents: Int
    /// The oldest and the newest member of the set holding those bytes.
    public var first: SnapshotReference
    public var last: SnapshotReference
    /// The member its path was read in: the newest of the set that has the inode (of its
    /// lineage), else the newest or the oldest holding its bytes.
    public var namedIn: SnapshotReference
    /// Its path inside `namedIn` (one of its names when hard linked); nil when the inode
    /// has no name left there (unlinked while open when the snapshot was taken).
    public var path: String?
    /// Hard links (names) it has in `namedIn`; 0 when unknown.
    public var links: Int

    /// `namedIn`: where to look for its name first (default: `last`).
    public init(
        inode: UInt64, bytes: UInt64, extents: Int = 1, first: UInt64, last: UInt64, namedIn: UInt64? = nil,
        path: String? = nil, links: Int = 0
    ) {
        self.inode = inode; self.bytes = bytes; self.extents = extents
        self.first = SnapshotReference(id: first); self.last = SnapshotReference(id: last)
        self.namedIn = SnapshotReference(id: namedIn ?? last); self.path = path; self.links = links
    }

    /// Where its name is looked for, in order: `namedIn` as the reader set it, then the
    /// newest and the oldest member holding its bytes (one of which has the inode).
    public var namingCandidates: [UInt64] {
        var candidates: [UInt64] = []
        for id in [namedIn.id, last.id, first.id] where !candidates.contains(id) { candidates.append(id) }
        return candidates
    }

    /// The path as tables show it: `<inode N in SNAPSHOT>` when it has none.
    public var displayPath: String { path ?? "<inode \(inode) in \(namedIn.path)>" }

    /// Largest first; equal sizes by path, then inode, so the order never depends on the reading.
    public static func largestFirst(_ a: PinnedFile, _ b: PinnedFile) -> Bool {
        if a.bytes != b.bytes { return a.bytes > b.bytes }
        if a.displayPath != b.displayPath { return a.displayPath < b.displayPath }
        return (a.namedIn.id, a.inode) < (b.namedIn.id, b.inode)
    }
}

/// What only a set of subvolumes of one filesystem holds, file by file.
public struct PinnedFiles: Sendable, Hashable {
    /// Largest first. Their bytes and `unattributed` add up to `reclaim.data`.
    public var files: [PinnedFile]
    /// What deleting the set frees: data exact, metadata (tree blocks, inline data) estimated.
    public var reclaim: SetReclaim
    /// Data bytes no file of the set's trees was found to reference (a tree deleted while
    /// it was read): counted in the total, named by no row.
    public var unattributed: UInt64
    /// The checksums of the freed data, which go from the checksum tree with it: one per
    /// sector on disk (none for a file written without them), so at most this many bytes.
    public var checksumBytes: UInt64 = 0
    /// What finding the files read, for `--verbose`; nil when nothing was read.
    public var scan: PinnedScanReport?

    public init(files: [PinnedFile], reclaim: SetReclaim, unattributed: UInt64 = 0) {
        self.files = files.sorted(by: PinnedFile.largestFirst); self.reclaim = reclaim
        self.unattributed = unattributed
    }

    /// The files with their snapshots' paths and labels from `subvolumes` (the listing).
    public func naming(from subvolumes: [Volume], on filesystem: Filesystem) -> PinnedFiles {
        var references: [UInt64: SnapshotReference] = [:]
        for subvolume in subvolumes {
            let path = subvolume.mountedPath ?? filesystem.mountedPath(ofTopLevelPath: subvolume.path)
            references[subvolume.id] = SnapshotReference(
                id: subvolume.id, path: path ?? "<FS_TREE>/" + subvolume.path, label: Self.label(subvolume))
        }
        var named = self
        for index in named.files.indices {
            named.files[index].first = references[named.files[index].first.id] ?? named.files[index].first
            named.files[index].last = references[named.files[index].last.id] ?? named.files[index].last
            named.files[index].namedIn = references[named.files[index].namedIn.id] ?? named.files[index].namedIn
        }
        named.files.sort(by: PinnedFile.largestFirst)
        return named
    }

    /// A snapshot's short name: snapper's CONFIG:NUMBER, a timeshift or btrbk name, else
    /// the last component of its path.
    static func label(_ subvolume: Volume) -> String {
        if let number = subvolume.metadata.number {
            return (subvolume.metadata.config.map { $0 + ":" } ?? "") + String(number)
        }
        if let name = subvolume.metadata.name { return name }
        return String(subvolume.path.split(separator: "/").last ?? Substring(subvolume.path))
    }
}

/// What finding pinned files read: the trees searched (whole, or where they changed
/// since the snapshot before), those read again whole because that missed a
/// reference, and how long it took with the naming.
public struct PinnedScanReport: Sendable, Hashable {
    /// Extents whose files were asked of btrfs by their back references.
    public var lookedUp: Int
    public var trees: Int
    public var whole: Int
    public var readAgain: Int
    public var bytesRead: UInt64
    public var files: Int
    public var seconds: Double
    public init(
        lookedUp: Int, trees: Int, whole: Int, readAgain: Int, bytesRead: UInt64, files: Int, seconds: Double
    ) {
        self.lookedUp = lookedUp; self.trees = trees; self.whole = whole; self.readAgain = readAgain
        self.bytesRead = bytesRead; self.files = files; self.seconds = seconds
    }

    /// One line for stderr.
    public var summary: String {
        "pinned files: looked up \(lookedUp) extents by their back references, searched \(trees) trees (\(whole) "
            + "whole, the others where they changed since the snapshot before), \(ByteSize.format(bytesRead)) of tree items"
            + (readAgain > 0 ? ", \(readAgain) again whole for what that missed" : "")
            + "; named \(files) files in \(ExactSizes.hundredths(seconds))s"
    }
}

/// The ability to say which files only a set of subvolumes holds (btrfs: from the
/// exact sizes' extent map and the set's own trees).
public protocol PinnedFileReading: Sendable {
    /// The files whose data only the subvolumes `set` of `filesystem` reference.
    /// `exact`: the filesystem's extent map when the caller has it; without it the
    /// reader scans as `--sizes exact` does (the cache spares the read-only trees).
    func pinnedFiles(of set: [UInt64], on filesystem: Filesystem, exact: ExactSizes?) throws -> PinnedFiles
}
