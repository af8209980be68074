import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// snapper's room: its configs under the host root tell where each `.snapshots` is; a
/// deleted snapshot's `.snapshots/N` goes after it (kept, emptied, for the highest
/// number under UNIQUE_NUMBERS), with the filelists other snapshots keep of it; the
/// marker goes into `N` (see `DeletionMarkerDirectory`).
extension SnapperOwner: OwnerRoom {
    func prepare(_ settings: inout OwnerSettings, for filesystem: Filesystem, _ rooms: OwnerRooms) -> [String] {
        let snapper = SnapperConfigFiles(host: rooms.host).load()
        settings[Directories.self] = Directories(all: Self.directories(snapper.configs, on: filesystem))
        return snapper.warnings
    }

    /// Each config's `.snapshots` directory located on this filesystem through the mounts.
    static func directories(_ configs: [SnapperConfig], on filesystem: Filesystem) -> [Directory] {
        configs.compactMap { config in
            let snapshots = (config.subvolume == "/" ? "" : config.subvolume) + "/.snapshots"
            // A config of another filesystem resolves through none of this one's mounts.
            guard let uuid = try? BtrfsMounts.fsid(of: config.subvolume), uuid == filesystem.uuid,
                let path = filesystem.topLevelPath(ofMountedPath: snapshots)
            else { return nil }
            return Directory(config: config.name, topLevelPath: path, uniqueNumbers: config.uniqueNumbers)
        }
    }

    func markDeletion(of subvolume: Volume, in directory: String) throws -> Bool {
        try DeletionMarkerDirectory.writeMarker(
            in: directory, text: DeletionMarkerDirectory.text(subvolume) + directory + "/snapshot\n")
        return true
    }

    func removeMetadata(of subvolume: Volume, at path: String, _ rooms: OwnerRooms) throws -> String? {
        let removed = try ManagerMetadataRemoval.remove(path, keepingHighestNumber: subvolume.metadata.uniqueNumbers)
        if removed != nil, let number = subvolume.metadata.number {
            try rooms.cache(SnapperFilelists.init).removeCaches(of: UInt64(number), in: PathText.parent(of: path))
        }
        return removed
    }

    /// In every config's `.snapshots` on the filesystem, and in those the listing showed.
    func markedDirectories(in scope: InterruptedDeletionScope, _ rooms: OwnerRooms) -> MarkedDirectoryScan {
        let filesystem = scope.filesystem
        var places: [(path: String, config: String?)] = []
        for directory in Self.directories(SnapperConfigFiles(host: rooms.host).load().configs, on: filesystem) {
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
        return scan
    }

    func finish(_ directory: MarkedDeletionDirectory, _ rooms: OwnerRooms) throws -> Bool {
        // Checked again right before removing: the scan is a moment old.
        guard let state = try DeletionMarkerDirectory.state(of: directory.path) else { return true }
        guard state.marked, !state.snapshotPresent else {
            throw RuntimeError("not removing \(directory.path): it changed since it was found (marker or snapshot)")
        }
        let config = directory.config.flatMap { name in
            SnapperConfigFiles(host: rooms.host).load().configs.first { $0.name == name }
        }
        guard
            try ManagerMetadataRemoval.remove(directory.path, keepingHighestNumber: config?.uniqueNumbers ?? false)
                != nil
        else { return false }
        if let number = directory.number {
            try rooms.cache(SnapperFilelists.init).removeCaches(
                of: UInt64(number), in: PathText.parent(of: directory.path))
        }
        return true
    }
}
