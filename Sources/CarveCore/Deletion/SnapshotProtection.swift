/// Why carve will not delete a subvolume. The safety rules of DESIGN.md, one case each.
public enum Protection: Sendable, Hashable {
    /// It has no parent UUID and lies in no known snapshot layout: a real subvolume.
    case notSnapshot
    /// It is the filesystem's default subvolume (what a plain `mount` mounts).
    case defaultSubvolume
    /// It is mounted at `/`: the running system.
    case mountedAtRoot
    /// It is mounted (as `-o subvol=` or by a bind mount) at these places.
    case mounted([String])
    /// Other subvolumes are nested inside it; `--recursive` deletes them too.
    case nestedSubvolumes
    /// snapper's number 0 stands for the current system.
    case snapperZero
    /// snapper marked it important; `--include-important` deletes it.
    case important
    /// The next incremental send needs it (see `BackupChains`); `--break-chains` deletes it.
    case chainParent(String)

    /// One phrase, as printed after "protected: " or "cannot delete …: ".
    public var reason: String {
        switch self {
        case .notSnapshot: "not a snapshot (a plain subvolume is never deleted)"
        case .defaultSubvolume: "it is the filesystem's default subvolume"
        case .mountedAtRoot: "it is mounted at /"
        case .mounted(let places): "subvolume is mounted at \(places.joined(separator: ", ")) (EBUSY)"
        case .nestedSubvolumes: "it has nested subvolumes (use --recursive to delete them too)"
        case .snapperZero: "snapper snapshot 0 is the current system"
        case .important: "snapper marked it important (use --include-important)"
        case .chainParent(let why): "\(why) (use --break-chains)"
        }
    }
}

/// The flags that lift some of the safety rules; the others hold whatever the flags.
public struct DeletionRules: Sendable, Hashable {
    /// Delete nested subvolumes with their snapshot.
    public var recursive: Bool
    /// Delete snapper snapshots marked important.
    public var includeImportant: Bool
    /// Delete the ends of send/receive chains, so the next backup is a full one.
    public var breakChains: Bool
    public init(recursive: Bool = false, includeImportant: Bool = false, breakChains: Bool = false) {
        self.recursive = recursive; self.includeImportant = includeImportant; self.breakChains = breakChains
    }

    /// Every rule `subvolume` breaks, first the ones no flag lifts; empty when it may be deleted.
    public func protections(of subvolume: Volume) -> [Protection] {
        var found: [Protection] = []
        if !subvolume.isSnapshot { found.append(.notSnapshot) }
        if subvolume.isDefault { found.append(.defaultSubvolume) }
        if subvolume.mountpoints.contains("/") {
            found.append(.mountedAtRoot)
        } else if !subvolume.mountpoints.isEmpty {
            found.append(.mounted(subvolume.mountpoints))
        }
        let snapper = subvolume.metadata.manager == .snapper
        if snapper && subvolume.metadata.number == 0 { found.append(.snapperZero) }
        if snapper && subvolume.metadata.important && !includeImportant { found.append(.important) }
        if subvolume.hasNestedSubvolumes && !recursive { found.append(.nestedSubvolumes) }
        if let chain = subvolume.chainParent, !breakChains { found.append(.chainParent(chain)) }
        return found
    }
}
