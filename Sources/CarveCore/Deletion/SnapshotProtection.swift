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
        case .defaultSubvolume: "it is the filesystem's default subvolume"
        case .mountedAtRoot: "it is mounted at /"
        case .mounted(let places) where places.isEmpty: "something is mounted on it (EBUSY)"
        case .mounted(let places): "subvolume is mounted at \(places.joined(separator: ", ")) (EBUSY)"
        case .mountsInside(let places):
            "something is mounted inside it at \(places.joined(separator: ", ")) (unmount it first)"
        case .nestedSubvolumes: "it has nested subvolumes (use --recursive to delete them too)"
        case .snapperZero: "snapper snapshot 0 is the current system"
        case .important: "snapper marked it important (use --include-important)"
        case .chainParent(let why): "\(why) (use --break-chains)"
        case .beingSent: "a btrfs send is reading it (a backup in progress): delete it once the send ends"
        case .activeSwapFile(let file): "it holds the active swap file \(file) (swapoff it first)"
        case .zfs(let refusal): refusal.reason
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
    public func protections(
        of subvolume: Volume, on filesystem: Filesystem? = nil, named: Bool = false, recheck: Bool = false
    ) -> [Protection] {
        var found: [Protection] = []
        if !subvolume.isSnapshot { found.append(.notSnapshot) }
        if let tool = SnapshotOwners.owner(subvolume.metadata.manager)?.deletingTool {
            found.append(.ownedBy(subvolume.metadata.manager, tool: tool))
        }
        if subvolume.isDefault { found.append(.defaultSubvolume) }
        if subvolume.mountpoints.contains("/") {
            found.append(.mountedAtRoot)
        } else if !subvolume.mountpoints.isEmpty {
            found.append(.mounted(subvolume.mountpoints))
        }
        if !subvolume.mountsInside.isEmpty { found.append(.mountsInside(subvolume.mountsInside)) }
        if let owner = SnapshotOwners.owner(subvolume.metadata.manager) {
            found += owner.protections(of: subvolume, rules: self)
        }
        found += ZFSRefusal.of(subvolume.zfs).map(Protection.zfs)
        if subvolume.hasNestedSubvolumes && !recursive { found.append(.nestedSubvolumes) }
        if let chain = subvolume.chainParent, !breakChains { found.append(.chainParent(chain)) }
        if subvolume.isCloneInUse && !named { found.append(.cloneInUse) }
        // Last and only when nothing else keeps it: looking costs a read of /proc.
        if found.isEmpty, !ignoreInUse, let holders, let filesystem {
            let holding = holders.holders(of: subvolume, on: filesystem, recheck: recheck)
            if !holding.isEmpty { found.append(.inUse(holding)) }
        }
        return found
    }
}
