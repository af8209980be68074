import CarveCore

/// The mounts below each directory that holds one, from one mount table: a volume's
/// `mountsInside` is then a lookup per path it is reached by, not a scan of the table.
struct MountsBelow {
    /// The directories that hold a mount somewhere below them, with those mounts in table order.
    private var below: [String: [String]] = [:]
    /// Which lengths such a directory has. A path of another length is not hashed to be
    /// looked up: most snapshots hold no mount, and hashing each one's path cost more
    /// than the rest.
    private var lengths: [Bool]

    /// The directories above each mount, gathered once: the mounts times their depth.
    init(_ table: [MountEntry]) {
        for index in table.indices {
            let mountpoint = table[index].mountpoint
            var parent = Substring(mountpoint)
            while let slash = parent.lastIndex(of: "/"), slash != parent.startIndex {
                parent = parent[..<slash]
                below[String(parent), default: []].append(mountpoint)
            }
        }
        lengths = [Bool](repeating: false, count: (below.keys.map(\.utf8.count).max() ?? 0) + 1)
        for directory in below.keys { lengths[directory.utf8.count] = true }
    }

    /// The mounts below `mountedPath` or below one of `mountpoints`, each once, in the
    /// order of those paths and then of the table. None is looked for below `/`: the
    /// rule for a volume mounted at `/` covers it.
    func inside(_ mountedPath: String?, _ mountpoints: [String]) -> [String] {
        var found: [String] = []
        if let mountedPath { add(below: mountedPath, to: &found) }
        for path in mountpoints { add(below: path, to: &found) }
        return found
    }

    private func add(below reach: String, to found: inout [String]) {
        guard reach.utf8.count < lengths.count, lengths[reach.utf8.count], reach != "/", let mounts = below[reach]
        else { return }
        for mount in mounts where !found.contains(mount) { found.append(mount) }
    }
}

/// What a deletion asks of the mount table before each snapshot (the snapshot's own
/// mounts, the mounts inside it), worked out once per filesystem from each table read:
/// a run deleting a thousand snapshots scanned the table a thousand times. Kept only
/// while the table says it is unchanged (`MountTable.versionedMounts`); a table that
/// keeps no version is worked out afresh each time.
final class MountIndexes: @unchecked Sendable {
    struct Index {
        /// Each subvolume's mountpoints (`BtrfsMounts.mountpointsBySubvolume`).
        var mountpoints: [UInt64: [String]]
        var below: MountsBelow
    }

    private let lock = Lock()
    private var version: Int?
    private var indexes = ByFilesystem<Index>()

    func index(of filesystem: Filesystem, in table: any MountTable) throws -> Index {
        let (entries, version) = try table.versionedMounts()
        lock.lock()
        defer { lock.unlock() }
        if version == nil || version != self.version {
            self.version = version
            indexes.removeAll()
        } else if let known = indexes.value(for: filesystem.uuid) {
            return known
        }
        let index = Index(
            mountpoints: BtrfsMounts.mountpointsBySubvolume(on: filesystem, in: entries), below: MountsBelow(entries))
        if version != nil { indexes.set(index, for: filesystem.uuid) }
        return index
    }
}
