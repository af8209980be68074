/// What `carve check` is asked to check.
public enum CheckOperation: Sendable, Hashable {
    /// Shrink a partition or whole-device filesystem to this many bytes.
    case shrinkTo(UInt64)
    /// Shrink it by this many bytes.
    case shrinkBy(UInt64)
    /// Make room on a disk for a new partition of this many bytes.
    case newPartition(UInt64)
    /// Remove the device from its multi-device btrfs (`btrfs device remove`).
    case remove

    /// The option's name, as the report and JSON give it.
    public var name: String {
        switch self {
        case .shrinkTo: "shrink-to"
        case .shrinkBy: "shrink-by"
        case .newPartition: "new-partition"
        case .remove: "remove"
        }
    }
}

/// Whether the operation fits.
public enum CheckVerdict: String, Sendable, Hashable, Codable {
    case fits
    case doesNotFit = "does not fit"

    public var exitStatus: ExitStatus { self == .fits ? .success : .doesNotFit }
}

/// Something that stands in the way of the operation.
public struct Blocker: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// The filesystem type cannot be shrunk at all (xfs).
        case cannotShrink = "cannot-shrink"
        /// carve cannot tell for this type (LUKS, LVM, unknown): never a guessed yes.
        case cannotTell = "cannot-tell"
        /// An online-only filesystem (btrfs) is not mounted.
        case mustMount = "must-mount"
        /// An offline-only filesystem (ext4, vfat, ntfs) is mounted.
        case mustUnmount = "must-unmount"
        /// A swap area is active.
        case inUse = "in-use"
        /// The minimum size could not be found.
        case minimumUnknown = "minimum-unknown"
        /// The target is below the filesystem's minimum size.
        case belowMinimum = "below-minimum"
        /// Snapshots pin the space the target needs.
        case snapshots
        /// btrfs chunks hold space a balance would give back.
        case allocatedChunks = "allocated-chunks"
        /// No free gap is large enough and no partition can make room; for --remove, the
        /// other devices cannot take what this one holds.
        case noRoom = "no-room"
        /// The device cannot leave its filesystem: the only one, or too few left for a profile.
        case cannotRemove = "cannot-remove"
    }
    public var kind: Kind
    /// Bytes it stands for (how much too big, how much is pinned); nil when not a size.
    public var bytes: UInt64?
    public var detail: String
    /// `snapshots`: the subvolume ids of the snapshots it names.
    public var snapshotIDs: [UInt64] = []
    /// `snapshots`: the files that pin most of their space, largest first (`carve snapshots pinned`).
    public var pinnedFiles: [PinnedFile] = []
    public init(_ kind: Kind, bytes: UInt64? = nil, detail: String) {
        self.kind = kind; self.bytes = bytes; self.detail = detail
    }
}

/// Something the user can run to remove a blocker.
public struct Remedy: Sendable, Hashable, Codable {
    public var command: String
    /// Bytes it is expected to give back; nil when it frees nothing by itself.
    public var frees: UInt64?
    public var detail: String
    public init(command: String, frees: UInt64? = nil, detail: String) {
        self.command = command; self.frees = frees; self.detail = detail
    }
}

/// A partition as it would be after the operation.
public struct PlannedPartition: Sendable, Hashable, Codable {
    /// The partition number: the existing one for a shrink, nil for a new one.
    public var number: Int?
    public var range: SectorRange
    public init(number: Int?, range: SectorRange) { self.number = number; self.range = range }
}

/// The answer of `carve check`.
public struct CheckReport: Sendable, Hashable {
    public var device: String
    /// blkid TYPE of the filesystem that would shrink; nil when there is none.
    public var filesystem: String?
    public var operation: CheckOperation
    /// Size of the partition or device that would shrink; for a new partition in a gap, the gap.
    public var currentSize: UInt64?
    /// The size it would shrink to; for --new-partition, the requested size when a gap
    /// holds it, else the shrunk partition's size.
    public var targetSize: UInt64
    public var minimumSize: UInt64?
    /// The minimum once the deletable snapshots are gone; nil when unknown or not btrfs.
    public var minimumSizeWithoutSnapshots: UInt64?
    public var minimumSource: String?
    /// `fits` exactly when nothing blocks.
    public var verdict: CheckVerdict { blockers.isEmpty ? .fits : .doesNotFit }
    public var blockers: [Blocker]
    public var remedies: [Remedy]
    /// The partition that would shrink, with its new boundaries.
    public var shrunkPartition: PlannedPartition?
    /// --new-partition: where it would go.
    public var newPartition: SectorRange?
    /// Lines for people: what was found on the way, e.g. a balance would lower the minimum.
    public var notes: [String]
    /// When it fits: the commands that make it real, in order (ResizeSteps.swift).
    public var steps: [ResizeStep] = []
    /// Timers and cron jobs that would take snapshots of the filesystem meanwhile.
    public var timers: [SnapshotTimer] = []

    public init(
        device: String, filesystem: String?, operation: CheckOperation, currentSize: UInt64?, targetSize: UInt64,
        minimumSize: UInt64? = nil, minimumSizeWithoutSnapshots: UInt64? = nil, minimumSource: String? = nil,
        blockers: [Blocker] = [], remedies: [Remedy] = [], shrunkPartition: PlannedPartition? = nil,
        newPartition: SectorRange? = nil, notes: [String] = []
    ) {
        self.device = device; self.filesystem = filesystem; self.operation = operation
        self.currentSize = currentSize; self.targetSize = targetSize; self.minimumSize = minimumSize
        self.minimumSizeWithoutSnapshots = minimumSizeWithoutSnapshots; self.minimumSource = minimumSource
        self.blockers = blockers; self.remedies = remedies; self.shrunkPartition = shrunkPartition
        self.newPartition = newPartition; self.notes = notes
    }
}
