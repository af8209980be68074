/// A btrfs filesystem mount: where, and which subvolume is mounted there.
public struct FilesystemMount: Sendable, Hashable, Codable {
    public var mountpoint: String
    /// The mounted subvolume's path from the top level, e.g. "/" or "/@home".
    public var subvolumePath: String
    public var subvolumeID: UInt64
    public var readOnly: Bool
    public init(mountpoint: String, subvolumePath: String, subvolumeID: UInt64, readOnly: Bool = false) {
        self.mountpoint = mountpoint; self.subvolumePath = subvolumePath
        self.subvolumeID = subvolumeID; self.readOnly = readOnly
    }
}

/// One filesystem that holds snapshots (a btrfs, an LVM thin pool), however many times it is mounted.
public struct Filesystem: Sendable, Hashable, Codable {
    /// Which backend lists and deletes its snapshots.
    public var kind: FilesystemKind = .btrfs
    public var uuid: String
    public var label: String?
    /// Device nodes the filesystem lives on.
    public var devices: [String]
    /// Every mount of it, in mount-table order; never empty for a mounted filesystem.
    public var mounts: [FilesystemMount]
    public init(
        kind: FilesystemKind = .btrfs, uuid: String, label: String? = nil, devices: [String], mounts: [FilesystemMount]
    ) {
        self.kind = kind; self.uuid = uuid; self.label = label; self.devices = devices; self.mounts = mounts
    }
    /// The mountpoint carve names the filesystem by: its first mount.
    public var mountpoint: String { mounts.first?.mountpoint ?? "" }
}
