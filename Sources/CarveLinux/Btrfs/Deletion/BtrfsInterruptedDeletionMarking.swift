import CBtrfsUtil
import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// The marker in snapper's `.snapshots/N` and timeshift's `snapshots/DATE` (see
/// `InterruptedDeletionMarking`). Every path is opened without following a symlink
/// at its last component, and each directory looked in must be on the filesystem
/// being worked on.
extension BtrfsSnapshotBackend {
    /// Where timeshift keeps its snapshots, from the top level (it mounts the top level).
    static let timeshiftSnapshots = "timeshift-btrfs/snapshots"

    public func markDeletion(of subvolume: Volume, on filesystem: Filesystem) throws -> Bool {
        guard let path = subvolume.metadata.metadataPath else { return false }
        let text = "carve (pid \(getpid())) is deleting subvolume \(subvolume.id) \(subvolume.uuid) at "
        switch subvolume.metadata.manager {
        case .snapper:
            try DeletionMarkerDirectory.writeMarker(in: path, text: text + path + "/snapshot\n")
            return true
        case .timeshift:
            return try DeletionMarkerDirectory.writeMarker(
                in: path, text: text + (subvolume.mountedPath ?? path) + "\n", keepingExisting: true)
        default:
            return false
        }
    }

    public func unmarkDeletion(of subvolume: Volume, on filesystem: Filesystem) throws {
        guard [.snapper, .timeshift].contains(subvolume.metadata.manager), let path = subvolume.metadata.metadataPath
        else { return }
        try DeletionMarkerDirectory.removeMarker(in: path)
    }

    public func markedDirectories(in scope: InterruptedDeletionScope) throws -> MarkedDirectoryScan {
        let filesystem = scope.filesystem
        var places: [(path: String, config: String?)] = []
        for directory in snapperDirectories(SnapperConfigFiles(host: host).load().configs, on: filesystem) {
            guard let mounted = filesystem.mountedPath(ofTopLevelPath: directory.topLevelPath),
                !places.contains(where: { $0.path == mounted })
            else { continue }
            places.append((mounted, directory.config))
        }
        for path in scope.snapperDirectories where !places.contains(where: { $0.path == path }) {
            places.append((path, nil))
        }
        var scan = MarkedDirectoryScan()
        for place in places {
            scan.look(in: place.path) {
                try DeletionMarkerDirectory.marked(in: $0, config: place.config, filesystem: filesystem)
            }
        }
        var timeshift = filesystem.mountedPath(ofTopLevelPath: Self.timeshiftSnapshots).map { [$0] } ?? []
        for path in scope.timeshiftDirectories where !timeshift.contains(path) { timeshift.append(path) }
        for path in timeshift {
            scan.look(in: path) { try TimeshiftDateDirectory.marked(in: $0, filesystem: filesystem) }
        }
        return scan
    }

    public func finishInterruptedDeletion(_ directory: MarkedDeletionDirectory) throws -> Bool {
        if ManagerMetadataRemoval.retiredOriginal(PathText.lastComponent(of: directory.path)) != nil {
            return try ManagerMetadataRemoval.finishRetired(directory.path)
        }
        if directory.manager == .timeshift { return try TimeshiftDateDirectory.finish(directory.path) }
        // Checked again right before removing: the scan is a moment old.
        guard let state = try DeletionMarkerDirectory.state(of: directory.path) else { return true }
        guard state.marked, !state.snapshotPresent else {
            throw RuntimeError("not removing \(directory.path): it changed since it was found (marker or snapshot)")
        }
        let config = directory.config.flatMap { name in
            SnapperConfigFiles(host: host).load().configs.first { $0.name == name }
        }
        guard
            try ManagerMetadataRemoval.remove(directory.path, keepingHighestNumber: config?.uniqueNumbers ?? false)
                != nil
        else { return false }
        if let number = directory.number {
            try filelists.removeCaches(of: UInt64(number), in: PathText.parent(of: directory.path))
        }
        return true
    }

    public func dropDeletionMarker(_ directory: MarkedDeletionDirectory) throws {
        try DeletionMarkerDirectory.removeMarker(in: directory.path)
    }
}

extension MarkedDirectoryScan {
    /// Adds what `scan` finds in `path`, or a warning when it cannot look there.
    mutating func look(in path: String, _ scan: (String) throws -> [MarkedDeletionDirectory]) {
        do {
            directories += try scan(path)
        } catch {
            warnings.append("cannot look for deletions left unfinished in \(path): \(error)")
        }
    }
}
