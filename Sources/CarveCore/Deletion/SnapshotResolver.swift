/// Turns what the user typed (paths, snapper numbers, subvolume ids) into the
/// snapshots of the filesystems in scope. Every name must resolve: an unknown one
/// is bad input (exit 64), so nothing is deleted on a typo.
public struct SnapshotResolver: Sendable {
    public let backend: any SnapshotBackend
    /// The listings of the filesystems in scope (`--filesystem`, or every mounted btrfs).
    public let listings: [VolumeListing]
    /// True when `--filesystem` narrowed the scope, so a path elsewhere is an error.
    public let scoped: Bool
    /// The named paths, located once: a name resolves by volume id, not by a search.
    let located: LocatedPaths
    /// Per listing, the position of each volume id.
    private let positions: [[UInt64: Int]]

    public init(
        backend: any SnapshotBackend, listings: [VolumeListing], scoped: Bool, located: LocatedPaths = LocatedPaths()
    ) {
        self.backend = backend; self.listings = listings; self.scoped = scoped; self.located = located
        positions =
            located.locations.isEmpty
            ? []
            : listings.map { listing in
                Dictionary(
                    listing.subvolumes.indices.map { (listing.subvolumes[$0].id, $0) },
                    uniquingKeysWith: { first, _ in first })
            }
    }

    public func resolve(_ name: SnapshotName) throws -> [PlannedSnapshot] {
        switch name {
        case .path(let path): return [try resolve(path: path)]
        case .snapper(let config, let numbers): return try resolve(config: config, numbers: numbers)
        }
    }

    /// `--id ID`: needs one filesystem in scope.
    public func resolve(id: UInt64) throws -> PlannedSnapshot {
        guard listings.count == 1, let listing = listings.first else {
            throw UsageError(
                listings.isEmpty
                    ? "--id \(id): no mounted btrfs filesystem"
                    : "--id \(id) is ambiguous: \(listings.count) btrfs filesystems are in scope; name one with --filesystem"
            )
        }
        guard let subvolume = listing.subvolumes.first(where: { $0.id == id }) else {
            throw UsageError("--id \(id): no subvolume with id \(id) on \(listing.filesystem.mountpoint)")
        }
        return PlannedSnapshot(subvolume: subvolume, filesystem: listing.filesystem, named: true)
    }

    func resolve(path: String) throws -> PlannedSnapshot {
        if backend.claims(path) == .yes { return try resolve(zfsName: path) }
        let absolute = Self.absolute(path, from: backend.workingDirectory)
        if let found = locatedSnapshot(absolute) { return found }
        let real = backend.resolvedPath(absolute)
        guard
            real != nil
                || listings.contains(where: { listing in
                    listing.subvolumes.contains { $0.mountedPath == absolute }
                })
        else { throw UsageError("\(path): no such file or directory") }
        let resolved = real ?? absolute
        let filesystem = try btrfs(containing: resolved, named: path)
        if resolved != absolute {
            // A symlink may lead carve elsewhere only inside the same filesystem.
            let parent = PathText.parent(of: absolute)
            let start = try btrfs(containing: parent, named: path)
            guard start.uuid == filesystem.uuid else {
                throw UsageError("\(path) is a symlink out of its filesystem (to \(resolved))")
            }
        }
        guard let listing = listings.first(where: { $0.filesystem.uuid == filesystem.uuid }) else {
            let scope = listings.map(\.filesystem.mountpoint).joined(separator: ", ")
            throw UsageError("\(path) is on another filesystem (\(filesystem.mountpoint)) than --filesystem \(scope)")
        }
        let subvolume =
            listing.subvolumes.first { $0.mountedPath == resolved }
            ?? listing.subvolumes.first { Self.paths(of: $0, through: listing.filesystem).contains(resolved) }
        guard let subvolume else {
            throw UsageError("\(path) is not a snapshot: no subvolume starts there")
        }
        return PlannedSnapshot(subvolume: subvolume, filesystem: listing.filesystem, named: true)
    }

    /// A ZFS snapshot by its name (`tank/home@daily`): one of the listed ones, else bad
    /// input with zfs's own reason (the backend asks zfs about the name).
    private func resolve(zfsName name: String) throws -> PlannedSnapshot {
        for listing in listings where listing.filesystem.kind == .zfs {
            if let snapshot = listing.subvolumes.first(where: { $0.path == name && $0.zfs != nil }) {
                return PlannedSnapshot(subvolume: snapshot, filesystem: listing.filesystem, named: true)
            }
        }
        guard name.contains("@") else {
            throw UsageError("\(name) is a ZFS dataset, not a snapshot: name one as \(name)@SNAPSHOT")
        }
        let filesystem = try backend.filesystem(named: name)
        throw UsageError("\(name) is not in the scope of this run (\(scopeText)), but on \(filesystem.mountpoint)")
    }

    /// The snapshot at `absolute` when its location names a listed volume whose own path
    /// is exactly `absolute` (no symlink, no other filesystem on the way); else nil, and
    /// the name takes the full resolution.
    private func locatedSnapshot(_ absolute: String) -> PlannedSnapshot? {
        guard let location = located[absolute],
            let index = listings.firstIndex(where: { $0.filesystem.uuid == location.filesystem.uuid }),
            let position = positions[index][location.volumeID]
        else { return nil }
        // Read where it is, copied once into the plan: bound to names, the listing and the
        // subvolume were copied (some thirty references each) for every named path.
        guard
            listings[index].subvolumes[position].mountedPath == absolute
                || Self.paths(of: listings[index].subvolumes[position], through: listings[index].filesystem)
                    .contains(absolute)
        else { return nil }
        return PlannedSnapshot(
            subvolume: listings[index].subvolumes[position], filesystem: listings[index].filesystem, named: true)
    }

    func resolve(config: String, numbers: ClosedRange<Int>) throws -> [PlannedSnapshot] {
        var found: [PlannedSnapshot] = []
        var configKnown = false
        for listing in listings {
            for subvolume in listing.subvolumes
            where subvolume.metadata.manager == .snapper && subvolume.metadata.config == config {
                configKnown = true
                if let number = subvolume.metadata.number, numbers.contains(number) {
                    found.append(PlannedSnapshot(subvolume: subvolume, filesystem: listing.filesystem, named: true))
                }
            }
        }
        guard configKnown else {
            throw UsageError(
                "\(config):\(Self.text(numbers)): no snapper config '\(config)' with snapshots on \(scopeText)")
        }
        if numbers == 0...0 {
            throw UsageError("\(config):0 is snapper's current system, not a snapshot: it is never deleted")
        }
        // A single number must exist; a range deletes what exists inside it, as snapper does.
        guard !found.isEmpty || numbers.count > 1 else {
            throw UsageError(
                "\(config):\(numbers.lowerBound): snapper config '\(config)' has no snapshot \(numbers.lowerBound)")
        }
        return found
    }

    /// Every path through which a mount of the filesystem reaches the subvolume: a
    /// snapshot also mounted with `-o subvol=` is still named by its path in the tree.
    static func paths(of subvolume: Volume, through filesystem: Filesystem) -> [String] {
        let path = subvolume.path.split(separator: "/").joined(separator: "/")
        return filesystem.mounts.compactMap { mount in
            let root = mount.subvolumePath.split(separator: "/").joined(separator: "/")
            let base = mount.mountpoint == "/" ? "" : mount.mountpoint
            if root.isEmpty { return base + "/" + path }
            if path == root { return mount.mountpoint }
            if path.hasPrefix(root + "/") { return base + "/" + path.dropFirst(root.count + 1) }
            return nil
        }
    }

    private func btrfs(containing path: String, named name: String) throws -> Filesystem {
        do {
            return try backend.filesystem(containing: path)
        } catch let error as RuntimeError {
            // Naming a snapshot on ext4 is bad input here, not a runtime failure.
            throw UsageError("\(name): \(error.message)")
        }
    }

    private var scopeText: String {
        listings.isEmpty
            ? "any mounted btrfs filesystem" : listings.map(\.filesystem.mountpoint).joined(separator: ", ")
    }

    static func text(_ numbers: ClosedRange<Int>) -> String {
        numbers.count == 1 ? "\(numbers.lowerBound)" : "\(numbers.lowerBound)-\(numbers.upperBound)"
    }

    /// A filesystem or snapshot named on the command line as the backend reads it: a ZFS
    /// name as it is, a path made absolute.
    public static func commandLine(_ name: String, backend: any SnapshotBackend) -> String {
        backend.claims(name) != .no ? name : absolute(name, from: backend.workingDirectory)
    }

    /// An absolute, normalised path: no `.`, `..` or trailing slash; symlinks kept.
    static func absolute(_ path: String, from workingDirectory: @autoclosure () -> String) -> String {
        if isNormalAbsolute(path) { return path }
        let joined = path.hasPrefix("/") ? path : workingDirectory() + "/" + path
        var parts: [Substring] = []
        for part in joined.split(separator: "/") {
            if part == "." { continue }
            if part == ".." { _ = parts.popLast(); continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }
}

/// True for a path `absolute` leaves as it is: from the root, with no empty, `.` or `..`
/// component and no trailing slash. One pass over the string's own bytes, for a
/// thousand named paths: through the generic UTF8View each byte cost a call.
private func isNormalAbsolute(_ path: String) -> Bool {
    path.utf8.withContiguousStorageIfAvailable(isNormalAbsolute) ?? isNormalAbsolute(Array(path.utf8))
}

private func isNormalAbsolute(_ bytes: some Collection<UInt8>) -> Bool {
    var previous = UInt8(0), beforePrevious = UInt8(0), third = UInt8(0)
    let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
    for byte in bytes {
        if byte == slash {
            // "//", "/./" and "/../" end here.
            if previous == slash || (previous == dot && beforePrevious == slash)
                || (previous == dot && beforePrevious == dot && third == slash)
            {
                return false
            }
        }
        third = beforePrevious; beforePrevious = previous; previous = byte
    }
    guard bytes.first == slash else { return false }
    if bytes.count == 1 { return true }
    // A trailing "/", "/." or "/..".
    return
        !(previous == slash || (previous == dot && beforePrevious == slash)
        || (previous == dot && beforePrevious == dot && third == slash))
}

extension SnapshotListing {
    /// The btrfs filesystem holding a path the user named. A path on another
    /// filesystem is bad input (exit 64), in every command alike.
    public func filesystem(named path: String) throws -> Filesystem {
        do {
            return try filesystem(containing: path)
        } catch let error as RuntimeError {
            throw UsageError(error.message)
        }
    }

}
