/// Everything the planner needs to know about one filesystem that may shrink:
/// gathered once from the protocols, then judged without touching the system.
public struct ShrinkSubject: Sendable, Hashable {
    public var device: BlockDevice
    /// Where it is mounted now; empty when it is not.
    public var mountpoints: [String]
    public var figures: FilesystemFigures
    /// The partition entry when the filesystem sits on a partition, with its table.
    public var partition: PartitionEntry?
    public var table: PartitionTable?
    /// The disk holding the partition, as the steps name it to sfdisk and partx.
    public var diskPath: String?
    /// btrfs: its subvolumes, when it is mounted and could be listed.
    public var snapshots: VolumeListing?
    /// Why snapshots could not be listed, when they could not.
    public var snapshotNote: String?
    /// A ZFS pool's device: the pool's layout, or why it could not be read (`ZFSMemberCheck`).
    public var zfsPool: ZFSPoolLayout?
    public var zfsPoolNote: String?

    public init(
        device: BlockDevice, mountpoints: [String], figures: FilesystemFigures, partition: PartitionEntry? = nil,
        table: PartitionTable? = nil, snapshots: VolumeListing? = nil, snapshotNote: String? = nil
    ) {
        self.device = device; self.mountpoints = mountpoints; self.figures = figures; self.partition = partition
        self.table = table; self.snapshots = snapshots; self.snapshotNote = snapshotNote
    }

    /// Why it is busy in a way a mount does not show (an active swap area), when it is.
    public var busy: String? { figures.busy }
    public var fsType: String? { figures.fsType ?? device.properties.fsType }
    public var rule: ShrinkRule { ShrinkRule.rule(for: fsType) }
    /// Where the steps write, when the filesystem sits on a partition of a known table.
    public var stepTarget: StepTarget? {
        guard let diskPath, let table, let partition else { return nil }
        return StepTarget(disk: diskPath, table: table, partition: partition, node: device.path)
    }
    /// Bytes the partition or device holds now.
    public var currentSize: UInt64 { device.size }
}

extension Volume {
    /// True when carve would never delete it in bulk: not a snapshot, a container
    /// engine's, a clone in use, the default subvolume, mounted, marked important,
    /// snapper's #0, or holding nested subvolumes.
    public var isProtected: Bool {
        !isSnapshot || metadata.manager.isContainerEngine || isCloneInUse || isDefault || !mountpoints.isEmpty
            || metadata.important || metadata.number == 0 || hasNestedSubvolumes
    }
}
