/// Why carve will not delete a subvolume. The safety rules of DESIGN.md, one case each.
public enum Protection: Sendable, Hashable {
    /// It has no parent UUID and lies in no known snapshot layout: a real subvolume.
    case notSnapshot
    /// A container engine owns it (its layer, container or snapshot): the engine keeps a
    /// database about it, so only the engine's own tool deletes it.
    case ownedBy(SnapshotManager, tool: String)
    /// A plain writable snapshot written to since it was taken: deleted only when named.
    case cloneInUse
    /// Running processes hold something inside it (an open file, a working or root
    /// directory, a memory map); `--ignore-in-use` deletes it anyway.
    case inUse([VolumeHolder])
    /// Processes carve cannot look into might hold it (no CAP_SYS_PTRACE, `hidepid`, a
    /// PID namespace): kept, since carve cannot tell; `--ignore-in-use` deletes it anyway.
    case holdersUnseen(UnseenProcesses)
    /// It is the filesystem's default subvolume (what a plain `mount` mounts).
    case defaultSubvolume
    /// It is mounted at `/`: the running system.
    case mountedAtRoot
    /// It is mounted (as `-o subvol=` or by a bind mount) at these places; none named
    /// when the filesystem answered EBUSY without saying where.
    case mounted([String])
    /// Another filesystem is mounted inside it (a container's /proc, a bind mount):
    /// deleting it would detach those mounts under whoever uses them.
    case mountsInside([String])
    /// Other subvolumes are nested inside it; `--recursive` deletes them too.
    case nestedSubvolumes
    /// With `--recursive`: a subvolume nested inside it (named by its path) is protected
    /// for these reasons, as it would be on its own, so the snapshot is kept with it.
    case nestedProtected(String, [Protection])
    /// snapper's number 0 stands for the current system.
    case snapperZero
    /// snapper marked it important; `--include-important` deletes it.
    case important
    /// The next incremental send needs it (see `BackupChains`); `--break-chains` deletes it.
    case chainParent(String)
    /// A `btrfs send` is reading it (a backup in progress): btrfs refuses with EPERM
    /// until the send ends. Only the kernel knows; carve learns it from the refusal.
    case beingSent
    /// A swap file inside it is active: btrfs refuses with EPERM until `swapoff`.
    case activeSwapFile(String)
    /// ZFS refuses to destroy it: a hold, a clone, a send (see `ZFSRefusal`).
    case zfs(ZFSRefusal)

    /// One phrase, as printed after "protected: " or "cannot delete …: ".
    public var reason: String {
        switch self {
        case .notSnapshot: "not a snapshot (a plain subvolume is never deleted)"
        case .ownedBy(let owner, let tool): "owned by \(owner.rawValue): delete it with \(tool)"
        case .cloneInUse: "written to since it was taken: a clone in use (name it to delete it)"
        case .inUse(let holders):
            "in use by \(holders.map(\.description).joined(separator: ", ")) (use --ignore-in-use)"
        case .holdersUnseen(let unseen): "may be in use by \(unseen.phrase) (use --ignore-in-use)"
        case .defaultSubvolume: "it is the filesystem's default subvolume"
        case .mountedAtRoot: "it is mounted at /"
        case .mounted(let places) where places.isEmpty: "something is mounted on it (EBUSY)"
        case .mounted(let places): "subvolume is mounted at \(places.joined(separator: ", ")) (EBUSY)"
        case .mountsInside(let places):
            "something is mounted inside it at \(places.joined(separator: ", ")) (unmount it first)"
        case .nestedSubvolumes: "it has nested subvolumes (use --recursive to delete them too)"
        case .nestedProtected(let path, let protections):
            "its nested subvolume \(path) is protected: \(protections.map(\.reason).joined(separator: "; "))"
        case .snapperZero: "snapper snapshot 0 is the current system"
        case .important: "snapper marked it important (use --include-important)"
        case .chainParent(let why): "\(why) (use --break-chains)"
        case .beingSent: "a btrfs send is reading it (a backup in progress): delete it once the send ends"
        case .activeSwapFile(let file): "it holds the active swap file \(file) (swapoff it first)"
        case .zfs(let refusal): refusal.reason
        }
    }
}

extension Protection {
    /// The safety rules as a reader of `--help` counts them, each with its phrase: every
    /// protection belongs to one (`rule`), so a new one cannot be left out of the texts.
    public enum Rule: CaseIterable, Sendable {
        case notSnapshot, engine, clone, inUse, mounted, mountsInside, nested, snapper, chain, send, swapFile
        case zfsHold, zfsOrigin

        /// What the rule keeps, as a plural noun phrase.
        public var phrase: String {
            switch self {
            case .notSnapshot: "plain subvolumes"
            case .engine: "container engines' subvolumes"
            case .clone: "clones in use (unless named)"
            case .inUse: "snapshots a process holds or might hold unseen"
            case .mounted: "the default subvolume and mounted ones"
            case .mountsInside: "ones with a mount inside"
            case .nested: "ones with nested subvolumes (with --recursive, with a protected one)"
            case .snapper: "snapper 0 and important ones"
            case .chain: "the ends of send/receive chains"
            case .send: "ones a btrfs or zfs send is reading"
            case .swapFile: "ones holding an active swap file"
            case .zfsHold: "ZFS snapshots with user holds"
            case .zfsOrigin: "ZFS snapshots a clone was made of"
            }
        }

        /// "plain subvolumes; container engines' subvolumes; …", for the help texts.
        public static var list: String { allCases.map(\.phrase).joined(separator: "; ") }
    }

    /// The rule this protection applies.
    public var rule: Rule {
        switch self {
        case .notSnapshot: .notSnapshot
        case .ownedBy: .engine
        case .cloneInUse: .clone
        case .inUse, .holdersUnseen: .inUse
        case .defaultSubvolume, .mountedAtRoot, .mounted: .mounted
        case .mountsInside: .mountsInside
        case .nestedSubvolumes, .nestedProtected: .nested
        case .snapperZero, .important: .snapper
        case .chainParent: .chain
        case .beingSent: .send
        case .activeSwapFile: .swapFile
        case .zfs(.held): .zfsHold
        case .zfs(.cloneOrigin): .zfsOrigin
        case .zfs(.beingSent): .send
        }
    }

    /// The processes carve could not look into behind this protection, nested ones included.
    var unseenProcesses: [UnseenProcesses] {
        switch self {
        case .holdersUnseen(let unseen): [unseen]
        case .nestedProtected(_, let protections): protections.flatMap(\.unseenProcesses)
        default: []
        }
    }
}

/// The flags that lift some of the safety rules; the others hold whatever the flags.
public struct DeletionRules: Sendable {
    /// Delete nested subvolumes with their snapshot.
    public var recursive: Bool
    /// Delete snapper snapshots marked important.
    public var includeImportant: Bool
    /// Delete the ends of send/receive chains, so the next backup is a full one.
    public var breakChains: Bool
    /// Delete snapshots that running processes hold (`--ignore-in-use`).
    public var ignoreInUse: Bool
    /// Which processes hold a snapshot; nil: none is looked for (a fake, a listing).
    public var holders: (any VolumeHolders)?

    public init(
        recursive: Bool = false, includeImportant: Bool = false, breakChains: Bool = false, ignoreInUse: Bool = false,
        holders: (any VolumeHolders)? = nil
    ) {
        self.recursive = recursive; self.includeImportant = includeImportant; self.breakChains = breakChains
        self.ignoreInUse = ignoreInUse; self.holders = holders
    }

    /// Every rule `subvolume` breaks, first the ones no flag lifts; empty when it may be
    /// deleted. `named`: the user named it, which lifts the clone-in-use rule alone.
    /// `recheck`: right before its deletion, so who holds it is looked at again.
    /// `nested`: with `recursive`, every subvolume below it, each of which must pass the
    /// rules as a snapshot of its own would (a plain subvolume may go with its parent).
    public func protections(
        of subvolume: Volume, on filesystem: Filesystem? = nil, named: Bool = false, recheck: Bool = false,
        nested: [Volume] = []
    ) -> [Protection] {
        var found: [Protection] = []
        if !subvolume.isSnapshot { found.append(.notSnapshot) }
        found += rulesOfItsOwn(subvolume, named: named, alone: true)
        let below = recursive ? nested : []
        for volume in below {
            let kept = rulesOfItsOwn(volume, named: false, alone: false)
            if !kept.isEmpty { found.append(.nestedProtected(Self.name(of: volume), kept)) }
        }
        // Last and only when nothing else keeps it: looking costs a read of /proc.
        if found.isEmpty, !ignoreInUse, let holders, let filesystem {
            if let held = Self.inUse(holders.holders(of: subvolume, on: filesystem, recheck: recheck)) {
                found.append(held)
            }
            for volume in below {
                if let held = Self.inUse(holders.holders(of: volume, on: filesystem, recheck: recheck)) {
                    found.append(.nestedProtected(Self.name(of: volume), [held]))
                }
            }
        }
        return found
    }

    /// The rules a volume breaks by its own state, whether it goes alone or with its
    /// parent: its owner, being the default or mounted, mounts inside, its owner's own
    /// rules, a backup chain, a clone in use; `alone`: nested subvolumes without `recursive`.
    private func rulesOfItsOwn(_ volume: Volume, named: Bool, alone: Bool) -> [Protection] {
        var found: [Protection] = []
        let owner = SnapshotOwners.owner(volume.metadata.manager)
        if let tool = owner?.deletingTool { found.append(.ownedBy(volume.metadata.manager, tool: tool)) }
        if volume.isDefault { found.append(.defaultSubvolume) }
        if volume.mountpoints.contains("/") {
            found.append(.mountedAtRoot)
        } else if !volume.mountpoints.isEmpty {
            found.append(.mounted(volume.mountpoints))
        }
        if !volume.mountsInside.isEmpty { found.append(.mountsInside(volume.mountsInside)) }
        if let owner { found += owner.protections(of: volume, rules: self) }
        found += ZFSRefusal.of(volume.zfs).map(Protection.zfs)
        if alone && volume.hasNestedSubvolumes && !recursive { found.append(.nestedSubvolumes) }
        if let chain = volume.chainParent, !breakChains { found.append(.chainParent(chain)) }
        if volume.isCloneInUse && !named { found.append(.cloneInUse) }
        return found
    }

    /// Seen holders keep a volume; else processes carve could not look into do.
    private static func inUse(_ holding: VolumeHolding) -> Protection? {
        if !holding.holders.isEmpty { return .inUse(holding.holders) }
        return holding.unseen.map(Protection.holdersUnseen)
    }

    private static func name(of volume: Volume) -> String { volume.mountedPath ?? "<FS_TREE>/" + volume.path }
}
