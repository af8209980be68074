import CarveCore
import Synchronization

/// One snapshot as listings show it: the subvolume, its filesystem, and where its
/// source is mounted (looked up in the same listing). A class that points into its
/// listing's subvolumes: ten thousand rows are sorted and handed to every column,
/// and copying each fat subvolume into its row (and destroying both copies) cost
/// more than reading the snapshots from the kernel.
final class SnapshotRow: Sendable {
    /// The subvolumes and filesystem of one listing, shared by all of its rows.
    private final class Listing: Sendable {
        let subvolumes: [Volume]
        let filesystem: Filesystem
        /// `filesystem.mountpoint`, asked once: asked per row, it copied the filesystem.
        let mountpoint: String
        /// The last CREATED text made and the second it is for: snapshots taken within one
        /// second (a batch of them) print the one text, made once.
        let lastCreated = Mutex<(second: Int64, zone: TimeZone, text: String)?>(nil)
        init(_ subvolumes: [Volume], _ filesystem: Filesystem) {
            self.subvolumes = subvolumes; self.filesystem = filesystem; mountpoint = filesystem.mountpoint
        }
    }

    private let listing: Listing
    private let position: Int
    let sourceMountedPath: String?
    let timeZone: TimeZone
    /// With `--explain`: whether the selection takes it, and the retention rules that keep it.
    let explanation: SnapshotExplanation?

    /// Read in place (a borrow, not a copy) by every column.
    var snapshot: Volume { _read { yield listing.subvolumes[position] } }
    var filesystem: Filesystem { _read { yield listing.filesystem } }
    var filesystemMountpoint: String { listing.mountpoint }

    private init(
        _ listing: Listing, at position: Int, sourceMountedPath: String?, timeZone: TimeZone,
        explanation: SnapshotExplanation? = nil
    ) {
        self.listing = listing
        self.position = position
        self.sourceMountedPath = sourceMountedPath
        self.timeZone = timeZone
        self.explanation = explanation
    }

    /// One snapshot of `listing` (looks its source up: use `rows` for many).
    convenience init(_ snapshot: Volume, in listing: VolumeListing, timeZone: TimeZone) {
        let source = snapshot.sourceID.flatMap { id in listing.subvolumes.first { $0.id == id }?.mountedPath }
        self.init(Listing([snapshot], listing.filesystem), at: 0, sourceMountedPath: source, timeZone: timeZone)
    }

    /// The subvolumes at `positions` of `listing` as rows, none of them copied.
    static func rows(
        at positions: [Int], of listing: VolumeListing, timeZone: TimeZone,
        explanations: [UInt64: SnapshotExplanation]? = nil
    ) -> [SnapshotRow] {
        var sources = SourcePaths(listing.subvolumes)
        let shared = Listing(listing.subvolumes, listing.filesystem)
        return positions.map { position in
            let source = shared.subvolumes[position].sourceID.flatMap { sources.mountedPath(of: $0) }
            return SnapshotRow(
                shared, at: position, sourceMountedPath: source, timeZone: timeZone,
                explanation: explanations?[shared.subvolumes[position].id])
        }
    }

    /// True when a name in the row holds a byte that is not UTF-8, so its JSON object
    /// needs `KEY_base64` members (rare: such rows take the general JSON writer).
    var carriesBytes: Bool {
        func carries(_ text: String?) -> Bool { text.map(ByteText.carriesBytes) ?? false }
        return carries(snapshot.path) || carries(snapshot.mountedPath) || carries(filesystemMountpoint)
            || carries(source) || carries(snapshot.metadata.config) || carries(snapshot.metadata.name)
            || carries(snapshot.metadata.description) || snapshot.mountpoints.contains(where: ByteText.carriesBytes)
            || snapshot.metadata.tags.contains(where: ByteText.carriesBytes)
            || snapshot.zfs.map { facts in
                (facts.holdTags ?? []).contains(where: ByteText.carriesBytes)
                    || facts.clones.contains(where: ByteText.carriesBytes)
            } == true
    }

    var isZFS: Bool { filesystem.kind == .zfs }

    /// The mounted path, or the path from the top level as btrfs-progs writes it
    /// (`<FS_TREE>/…`); a ZFS snapshot's name (`tank/home@daily`).
    var path: String { isZFS ? snapshot.path : snapshot.mountedPath ?? "<FS_TREE>/" + snapshot.path }

    /// What it was taken of: on this filesystem (a ZFS snapshot's dataset, by name), or
    /// for a received snapshot the snapshot it was sent from.
    var source: String? {
        if isZFS { return snapshot.sourcePath }
        return sourceMountedPath ?? snapshot.sourcePath.map { "<FS_TREE>/" + $0 } ?? snapshot.receivedSourcePath
    }

    /// snapper's number, else timeshift's or btrbk's snapshot name.
    var number: String { snapshot.metadata.number.map(String.init) ?? snapshot.metadata.name ?? "" }

    var createdShort: String {
        let second = snapshot.created.wholeSeconds
        return listing.lastCreated.withLock { last in
            if let last, last.second == second, last.zone == timeZone { return last.text }
            let text = DateText.short(snapshot.created, timeZone: timeZone)
            last = (second, timeZone, text)
            return text
        }
    }
}

/// The mounted path of each row's source, by the source's id. Most rows name the same
/// few sources, so the last one found is kept; a listing in id order (btrfs's root tree
/// gives it so) is searched by halves, any other through a table made once. A table of
/// every subvolume's path, made for each listing, cost more than the rows it served.
private struct SourcePaths {
    private let volumes: [Volume]
    private let inIDOrder: Bool
    private var table: [UInt64: String]?
    private var last: (id: UInt64, path: String?)?

    init(_ volumes: [Volume]) {
        self.volumes = volumes
        // Through the buffer: iterating by value, or by the array's subscript, copied every subvolume.
        inIDOrder = volumes.withUnsafeBufferPointer { volumes in
            volumes.indices.dropFirst().allSatisfy { volumes[$0 - 1].id < volumes[$0].id }
        }
    }

    mutating func mountedPath(of id: UInt64) -> String? {
        if let last, last.id == id { return last.path }
        let path = inIDOrder ? searched(id) : tabled(id)
        last = (id, path)
        return path
    }

    private func searched(_ id: UInt64) -> String? {
        volumes.withUnsafeBufferPointer { volumes in
            var (low, high) = (0, volumes.count)
            while low < high {
                let middle = (low + high) / 2
                if volumes[middle].id < id { low = middle + 1 } else { high = middle }
            }
            return low < volumes.count && volumes[low].id == id ? volumes[low].mountedPath : nil
        }
    }

    private mutating func tabled(_ id: UInt64) -> String? {
        if table == nil {
            var built: [UInt64: String] = [:]
            built.reserveCapacity(volumes.count)
            volumes.withUnsafeBufferPointer { volumes in
                for index in volumes.indices { built[volumes[index].id] = volumes[index].mountedPath }
            }
            table = built
        }
        return table?[id]
    }
}
