import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// Every owner's room, as one `OwnerHousekeeping`: each call goes to the room of the
/// snapshot's or directory's owner (see `OwnerRoom`). Files are read under `host`.
public struct OwnerRooms: OwnerHousekeeping {
    public var host: HostRoot
    private let caches = OwnerCaches()

    public init(host: HostRoot = .system) { self.host = host }

    /// The room of an owner; nil when it keeps nothing on disk.
    static func room(_ manager: SnapshotManager) -> (any OwnerRoom)? {
        SnapshotOwners.owner(manager) as? any OwnerRoom
    }

    /// What the rooms of the owners living on `filesystem`'s kind learn before its
    /// volumes are classified, and their warnings.
    public func prepare(_ settings: inout OwnerSettings, for filesystem: Filesystem) -> [String] {
        var warnings: [String] = []
        for case let room as any OwnerRoom in SnapshotOwners.all(for: filesystem.kind) {
            warnings += room.prepare(&settings, for: filesystem, self)
        }
        return warnings
    }

    /// Metadata files read whole up to their limit; existence looked up once per path,
    /// because owners look at the same few files beside thousands of subvolumes (a pool's root).
    public func hostFiles() -> (read: OwnerContext.FileReader, probe: OwnerProbe) {
        let looked = OnceCache<String, Bool>()
        return (
            { path, limit in try MetadataFile.read(path, limit: limit) },
            { path in looked.value(for: path) { Files.exists(path) } }
        )
    }

    /// A value shared by a room's calls during one run (snapper's filelist index), made once.
    func cache<Value: AnyObject & Sendable>(_ make: () -> Value) -> Value { caches.value(make) }

    public func removeManagerMetadata(of subvolume: Volume, on filesystem: Filesystem) throws -> String? {
        guard let path = subvolume.metadata.metadataPath else { return nil }
        guard let room = Self.room(subvolume.metadata.manager) else { return try ManagerMetadataRemoval.remove(path) }
        return try room.removeMetadata(of: subvolume, at: path, self)
    }

    public func markDeletion(of subvolume: Volume, on filesystem: Filesystem) throws -> Bool {
        guard let path = subvolume.metadata.metadataPath, let room = Self.room(subvolume.metadata.manager),
            room.marksDeletion
        else { return false }
        return try room.markDeletion(of: subvolume, in: path)
    }

    public func unmarkDeletion(of subvolume: Volume, on filesystem: Filesystem) throws {
        guard Self.room(subvolume.metadata.manager)?.marksDeletion == true, let path = subvolume.metadata.metadataPath
        else { return }
        try DeletionMarkerDirectory.removeMarker(in: path)
    }

    /// Markers are written only where carve deletes: on btrfs.
    public func markedDirectories(in scope: InterruptedDeletionScope) throws -> MarkedDirectoryScan {
        guard scope.filesystem.kind == .btrfs else { return MarkedDirectoryScan() }
        var scan = MarkedDirectoryScan()
        // Those that mark first: each owner's first cast to a room scans every conformance
        // the binary holds (50,000 instructions), and only two owners of fifteen mark.
        for owner in SnapshotOwners.all where owner.marksDeletion {
            guard let room = owner as? any OwnerRoom else { continue }
            let found = room.markedDirectories(in: scope, self)
            scan.directories += found.directories
            scan.warnings += found.warnings
        }
        for index in scan.directories.indices { scan.directories[index].kind = scope.filesystem.kind }
        return scan
    }

    /// A retired directory (only carve's marker left, renamed) is carve's alone, whoever's it was.
    public func finishInterruptedDeletion(_ directory: MarkedDeletionDirectory) throws -> Bool {
        if ManagerMetadataRemoval.retiredOriginal(PathText.lastComponent(of: directory.path)) != nil {
            return try ManagerMetadataRemoval.finishRetired(directory.path)
        }
        guard let room = Self.room(directory.manager) else {
            throw RuntimeError("\(directory.path): \(directory.manager.rawValue) keeps no marked directories")
        }
        return try room.finish(directory, self)
    }

    public func dropDeletionMarker(_ directory: MarkedDeletionDirectory) throws {
        try DeletionMarkerDirectory.removeMarker(in: directory.path)
    }
}

extension SnapshotBackendRegistry {
    /// `backend` alone, its listings classified by the owners' rooms under `host`: how code
    /// outside `Services` (an integration test's run) lists and deletes as carve does.
    public static func classifying(
        _ backend: some SnapshotBackend, for kind: FilesystemKind = .btrfs, host: HostRoot = .system
    ) -> SnapshotBackendRegistry {
        var registry = SnapshotBackendRegistry(backend, for: kind)
        registry.owners = OwnerRooms(host: host)
        return registry
    }
}

/// The rooms' values of one run, one per type.
private final class OwnerCaches: @unchecked Sendable {
    private let lock = Lock()
    private var values: [ObjectIdentifier: AnyObject] = [:]

    func value<Value: AnyObject & Sendable>(_ make: () -> Value) -> Value {
        lock.lock()
        defer { lock.unlock() }
        if let value = values[ObjectIdentifier(Value.self)] as? Value { return value }
        let value = make()
        values[ObjectIdentifier(Value.self)] = value
        return value
    }
}
