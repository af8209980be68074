/// One btrfs subvolume: a snapshot, or (with --all-subvolumes) a plain subvolume.
///
/// Optional fields are spelled `Optional<T>`, not `T?`: a `var` of type `T?` is set to
/// nil before the initialiser runs, and with three or more such fields assigned there
/// the compiler built each value on the stack and copied it out (every reference
/// retained and released once more), for each of the ten thousand a listing makes.
public struct Volume: Sendable, Hashable, Codable {
    public var id: UInt64
    /// The id of the subvolume that contains it (5 is the top level).
    public var parentID: UInt64
    /// Path from the top level, with no leading slash, e.g. "@/.snapshots/3/snapshot".
    public var path: String
    /// The absolute path through a current mount, or nil when no mount reaches it.
    public var mountedPath: Optional<String>
    public var uuid: SubvolumeUUID
    /// The UUID of the subvolume it was snapshotted from; nil for a plain subvolume.
    public var parentUUID: Optional<SubvolumeUUID>
    public var receivedUUID: Optional<SubvolumeUUID>
    public var generation: UInt64
    /// The transaction that created it (btrfs's otransid): a tree whose generation
    /// moved past it was changed after the snapshot was taken, if only an atime.
    public var createdGeneration: UInt64
    /// When the snapshot was taken: its manager's date when the manager recorded one
    /// (snapper's info.xml, btrbk's name, timeshift's info.json or directory), else
    /// `otime`. Every age, order and retention rule reads this one date.
    public var created: Date
    /// The subvolume's creation time as btrfs records it; on a backup disk, the day
    /// it was received.
    public var otime: Date
    public var readOnly: Bool
    /// True when this is a snapshot: it has a parent UUID or lies in a known snapshot layout.
    public var isSnapshot: Bool
    public var metadata: ManagerMetadata
    /// The subvolume it was taken of, when that still exists.
    public var sourceID: Optional<UInt64>
    public var sourcePath: Optional<String>
    /// Bytes only this subvolume references, when known.
    public var exclusive: Optional<UInt64>
    /// Bytes this subvolume references, when known.
    public var referenced: Optional<UInt64>
    /// True when other subvolumes are nested inside it.
    public var hasNestedSubvolumes: Bool
    /// True when it is the filesystem's default subvolume.
    public var isDefault: Bool
    /// Where it is mounted itself (as `-o subvol=`), empty when it is not.
    public var mountpoints: [String]
    /// Mountpoints of other mounts inside it (any filesystem), empty when none.
    public var mountsInside: [String]
    /// A received snapshot: the snapshot it was sent from, when a mounted filesystem
    /// holds it (see `BackupChains`).
    public var receivedSourcePath: Optional<String>
    /// Why deleting it breaks a send/receive chain, when it does (see `BackupChains`).
    public var chainParent: Optional<String>
    /// A writable snapshot whose tree was written to after it was taken (a file or
    /// directory created, removed, renamed, written or its attributes changed; reading,
    /// which moves only atimes, does not count): a clone in use, not a backup.
    public var changedSinceTaken: Bool
    /// A ZFS snapshot's holds, clones and sends; nil on other filesystems.
    public var zfs: Optional<ZFSFacts>

    /// Inlinable: a listing makes ten thousand in another module, and the call that
    /// could not be inlined there cost more than filling the fields.
    @inlinable
    public init(
        id: UInt64, parentID: UInt64 = 5, path: String, mountedPath: String? = nil, uuid: SubvolumeUUID,
        parentUUID: SubvolumeUUID? = nil, receivedUUID: SubvolumeUUID? = nil, generation: UInt64 = 0,
        createdGeneration: UInt64 = 0, created: Date,
        readOnly: Bool = true, isSnapshot: Bool = true, metadata: ManagerMetadata = .plain,
        sourceID: UInt64? = nil, sourcePath: String? = nil, exclusive: UInt64? = nil, referenced: UInt64? = nil,
        hasNestedSubvolumes: Bool = false, isDefault: Bool = false, mountpoints: [String] = []
    ) {
        self.id = id; self.parentID = parentID; self.path = path; self.mountedPath = mountedPath
        self.uuid = uuid; self.parentUUID = parentUUID; self.receivedUUID = receivedUUID
        self.generation = generation; self.createdGeneration = createdGeneration; self.created = created;
        self.otime = created; self.readOnly = readOnly
        self.isSnapshot = isSnapshot; self.metadata = metadata; self.sourceID = sourceID
        self.sourcePath = sourcePath; self.exclusive = exclusive; self.referenced = referenced
        self.hasNestedSubvolumes = hasNestedSubvolumes; self.isDefault = isDefault; self.mountpoints = mountpoints
        // Set here, not as the properties' initial values: those are calls across modules.
        mountsInside = []; receivedSourcePath = nil; chainParent = nil; changedSinceTaken = false; zfs = nil
    }

    /// Where `created` comes from: the manager's name (snapper, btrbk, timeshift) or "otime".
    /// Inlinable: a column reads it for each row of a listing, and a call into this
    /// module took a copy of the whole volume to hand it over.
    @inlinable
    public var dateSource: String { metadata.created != nil ? metadata.manager.rawValue : "otime" }

    /// A plain writable snapshot written to since it was taken: a work tree someone uses.
    public var isCloneInUse: Bool {
        isSnapshot && !readOnly && changedSinceTaken && metadata.manager == .plain && receivedUUID == nil
    }

    /// A plain snapshot not yet known as a clone in use, which writing to it (once made
    /// writable) would make one: its clone state is read again right before its deletion.
    public var mayBecomeCloneInUse: Bool {
        isSnapshot && !changedSinceTaken && metadata.manager == .plain && receivedUUID == nil
    }

    /// True when a mount reaches it, so it can be named by path.
    public var isReachable: Bool { mountedPath != nil }
}
