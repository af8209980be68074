import Foundation

/// Who made a snapshot, as recognised from its layout and metadata.
public enum SnapshotManager: String, Sendable, Hashable, Codable, CaseIterable {
    case snapper, timeshift, btrbk, plain
}

/// How the sizes of snapshots are found.
public enum SizeMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// No sizes: fastest.
    case none
    /// From btrfs qgroups, when quotas are enabled and consistent.
    case quota
    /// From the extent trees, exact without quotas (slow, root only).
    case exact
}

/// A btrfs filesystem mount: where, and which subvolume is mounted there.
public struct BtrfsMount: Sendable, Hashable, Codable {
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

/// One btrfs filesystem, however many times it is mounted.
public struct BtrfsFilesystem: Sendable, Hashable, Codable {
    public var uuid: String
    public var label: String?
    /// Device nodes the filesystem lives on.
    public var devices: [String]
    /// Every mount of it, in mount-table order; never empty for a mounted filesystem.
    public var mounts: [BtrfsMount]
    public init(uuid: String, label: String? = nil, devices: [String], mounts: [BtrfsMount]) {
        self.uuid = uuid; self.label = label; self.devices = devices; self.mounts = mounts
    }
    /// The mountpoint carve names the filesystem by: its first mount.
    public var mountpoint: String { mounts.first?.mountpoint ?? "" }
}

/// What a snapshot manager recorded about a snapshot.
public struct ManagerMetadata: Sendable, Hashable, Codable {
    public var manager: SnapshotManager
    /// snapper: the config name.
    public var config: String?
    /// snapper: the snapshot number.
    public var number: Int?
    /// timeshift: the snapshot directory name; btrbk: the snapshot name.
    public var name: String?
    /// snapper: single, pre or post.
    public var type: String?
    public var description: String?
    /// snapper: the cleanup algorithm (number, timeline, empty-pre-post).
    public var cleanup: String?
    public var preNumber: Int?
    public var userdata: [String: String]
    /// timeshift: the tags (O, B, H, D, W, M).
    public var tags: [String]
    public var important: Bool
    /// When the manager says the snapshot was made; nil when it does not say.
    public var created: Date?
    /// The manager's metadata file or directory that goes with the snapshot
    /// (snapper's `.snapshots/N`, timeshift's snapshot directory); removed only after the snapshot.
    public var metadataPath: String?
    /// Why the manager's metadata could not be read, when it could not.
    public var warning: String?
    /// snapper: its config's UNIQUE_NUMBERS="yes", so the directory of the highest
    /// number is kept, emptied, as snapper keeps it, and that number is never given again.
    public var uniqueNumbers = false

    public init(
        manager: SnapshotManager, config: String? = nil, number: Int? = nil, name: String? = nil,
        type: String? = nil, description: String? = nil, cleanup: String? = nil, preNumber: Int? = nil,
        userdata: [String: String] = [:], tags: [String] = [], important: Bool = false,
        created: Date? = nil, metadataPath: String? = nil, warning: String? = nil
    ) {
        self.manager = manager; self.config = config; self.number = number; self.name = name
        self.type = type; self.description = description; self.cleanup = cleanup; self.preNumber = preNumber
        self.userdata = userdata; self.tags = tags; self.important = important; self.created = created
        self.metadataPath = metadataPath; self.warning = warning
    }

    public static let plain = ManagerMetadata(manager: .plain)
}

/// One btrfs subvolume: a snapshot, or (with --all-subvolumes) a plain subvolume.
public struct Subvolume: Sendable, Hashable, Codable {
    public var id: UInt64
    /// The id of the subvolume that contains it (5 is the top level).
    public var parentID: UInt64
    /// Path from the top level, with no leading slash, e.g. "@/.snapshots/3/snapshot".
    public var path: String
    /// The absolute path through a current mount, or nil when no mount reaches it.
    public var mountedPath: String?
    public var uuid: String
    /// The UUID of the subvolume it was snapshotted from; nil for a plain subvolume.
    public var parentUUID: String?
    public var receivedUUID: String?
    public var generation: UInt64
    /// Creation time (otime).
    public var created: Date
    public var readOnly: Bool
    /// True when this is a snapshot: it has a parent UUID or lies in a known snapshot layout.
    public var isSnapshot: Bool
    public var metadata: ManagerMetadata
    /// The subvolume it was taken of, when that still exists.
    public var sourceID: UInt64?
    public var sourcePath: String?
    /// Bytes only this subvolume references, when known.
    public var exclusive: UInt64?
    /// Bytes this subvolume references, when known.
    public var referenced: UInt64?
    /// True when other subvolumes are nested inside it.
    public var hasNestedSubvolumes: Bool
    /// True when it is the filesystem's default subvolume.
    public var isDefault: Bool
    /// Where it is mounted itself (as `-o subvol=`), empty when it is not.
    public var mountpoints: [String]

    public init(
        id: UInt64, parentID: UInt64 = 5, path: String, mountedPath: String? = nil, uuid: String,
        parentUUID: String? = nil, receivedUUID: String? = nil, generation: UInt64 = 0, created: Date,
        readOnly: Bool = true, isSnapshot: Bool = true, metadata: ManagerMetadata = .plain,
        sourceID: UInt64? = nil, sourcePath: String? = nil, exclusive: UInt64? = nil, referenced: UInt64? = nil,
        hasNestedSubvolumes: Bool = false, isDefault: Bool = false, mountpoints: [String] = []
    ) {
        self.id = id; self.parentID = parentID; self.path = path; self.mountedPath = mountedPath
        self.uuid = uuid; self.parentUUID = parentUUID; self.receivedUUID = receivedUUID
        self.generation = generation; self.created = created; self.readOnly = readOnly
        self.isSnapshot = isSnapshot; self.metadata = metadata; self.sourceID = sourceID
        self.sourcePath = sourcePath; self.exclusive = exclusive; self.referenced = referenced
        self.hasNestedSubvolumes = hasNestedSubvolumes; self.isDefault = isDefault; self.mountpoints = mountpoints
    }

    /// True when a mount reaches it, so it can be named by path.
    public var isReachable: Bool { mountedPath != nil }
}

/// The subvolumes of one filesystem, and what is known of their completeness and sizes.
public struct SubvolumeListing: Sendable, Hashable, Codable {
    public var filesystem: BtrfsFilesystem
    public var subvolumes: [Subvolume]
    /// How sizes were found; `.none` when they are unknown.
    public var sizes: SizeMode
    /// Why sizes are unknown, when they were asked for and are not known.
    public var sizeNote: String?
    /// Warnings to print on stderr (unreadable metadata, skipped entries).
    public var warnings: [String]
    /// With `--sizes exact`: the extent map, for what deleting any set frees.
    public var exact: ExactSizes? = nil
    public init(
        filesystem: BtrfsFilesystem, subvolumes: [Subvolume], sizes: SizeMode,
        sizeNote: String? = nil, warnings: [String] = []
    ) {
        self.filesystem = filesystem; self.subvolumes = subvolumes; self.sizes = sizes
        self.sizeNote = sizeNote; self.warnings = warnings
    }
}

/// Filesystem snapshots, behind a protocol so the planners and commands can be
/// tested on fakes. btrfs is the implementation in CarveLinux.
public protocol SnapshotBackend: Sendable {
    /// Every mounted btrfs filesystem, each once however many times it is mounted.
    func mountedFilesystems() throws -> [BtrfsFilesystem]
    /// The btrfs filesystem holding `path`; a `RuntimeError` naming the path and its
    /// filesystem type when it is not btrfs, a `UsageError` when it does not exist.
    func filesystem(containing path: String) throws -> BtrfsFilesystem
    /// `path` with every symlink resolved, its bytes kept; nil when it does not exist.
    func resolvedPath(_ path: String) -> String?
    /// Every subvolume of `filesystem` from the top level down, with manager
    /// metadata attached and sizes found as `sizes` asks.
    func subvolumes(of filesystem: BtrfsFilesystem, sizes: SizeMode) throws -> SubvolumeListing

    // Deletion primitives. They check nothing: `SnapshotDeleter.delete` is the one
    // caller, and it applies the safety rules to `currentState` first.

    /// The subvolume as the filesystem has it now (still there, default, mounts,
    /// nested subvolumes), keeping `subvolume`'s manager metadata; nil when it is gone.
    func currentState(of subvolume: Subvolume, on filesystem: BtrfsFilesystem) throws -> Subvolume?
    /// Deletes the subvolume: by path when a mount reaches it, else by id.
    /// Throws a `SystemCallError` that keeps errno (ENOENT when it is already gone).
    func deleteSubvolume(_ subvolume: Subvolume, on filesystem: BtrfsFilesystem, recursive: Bool) throws
    /// Removes the manager's metadata of a deleted snapshot (snapper's `.snapshots/N`,
    /// timeshift's snapshot directory), only once no subvolume is left inside it.
    /// Returns the path removed, or nil when there was nothing (yet) to remove.
    func removeManagerMetadata(of subvolume: Subvolume, on filesystem: BtrfsFilesystem) throws -> String?
    /// Commits the transaction and waits until the cleaner has dropped every subvolume in `ids`.
    func waitForCleanup(of ids: [UInt64], on filesystem: BtrfsFilesystem) throws
    /// How much of the filesystem is used and free now.
    func spaceUsage(of filesystem: BtrfsFilesystem) throws -> SpaceUsage
}

/// A filesystem's space: logical bytes used by data and metadata, and what statfs calls available.
public struct SpaceUsage: Sendable, Hashable, Codable {
    public var used: UInt64
    public var available: UInt64
    public init(used: UInt64, available: UInt64) { self.used = used; self.available = available }
}

extension SnapshotBackend {
    // A backend that can only list (a listing fake) refuses to delete, with a reason.
    public func currentState(of subvolume: Subvolume, on filesystem: BtrfsFilesystem) throws -> Subvolume? {
        throw RuntimeError("this snapshot backend cannot delete snapshots")
    }
    public func deleteSubvolume(_ subvolume: Subvolume, on filesystem: BtrfsFilesystem, recursive: Bool) throws {
        throw RuntimeError("this snapshot backend cannot delete snapshots")
    }
    public func removeManagerMetadata(of subvolume: Subvolume, on filesystem: BtrfsFilesystem) throws -> String? { nil }
    public func waitForCleanup(of ids: [UInt64], on filesystem: BtrfsFilesystem) throws {
        throw RuntimeError("this snapshot backend cannot wait for the btrfs cleaner")
    }
    public func spaceUsage(of filesystem: BtrfsFilesystem) throws -> SpaceUsage {
        throw RuntimeError("this snapshot backend cannot read space usage")
    }
}

/// The current time, behind a protocol so that age-based selection can be tested.
public protocol WallClock: Sendable {
    var now: Date { get }
    /// The time zone local times are read and shown in.
    var timeZone: TimeZone { get }
}

extension WallClock {
    public var timeZone: TimeZone { .current }
}

/// The system clock.
public struct SystemClock: WallClock {
    public init() {}
    public var now: Date { Date() }
}
