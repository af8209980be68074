/// Where a path lands: the mounted filesystem and the volume (btrfs subvolume) that
/// holds it, as one `statfs` tells (see `SnapshotBackend.locate`).
public struct VolumeLocation: Sendable, Hashable {
    public var filesystem: Filesystem
    public var volumeID: UInt64
    public init(filesystem: Filesystem, volumeID: UInt64) { self.filesystem = filesystem; self.volumeID = volumeID }
}

/// The paths a command named, each located once (`SnapshotBackend.locate`): the
/// filesystems to list follow from them, and each name then resolves by volume id
/// without a search or another system call.
public struct LocatedPaths: Sendable {
    public private(set) var locations: [String: VolumeLocation] = [:]

    public init() {}

    /// Locates each absolute path among `filesystems`; a path carve cannot place stays out.
    public init(_ paths: [String], backend: any SnapshotBackend, among filesystems: [Filesystem]) {
        locations.reserveCapacity(paths.count)
        for path in paths where locations[path] == nil {
            if let location = backend.locate(path, among: filesystems) { locations[path] = location }
        }
    }

    public subscript(path: String) -> VolumeLocation? { locations[path] }
}
