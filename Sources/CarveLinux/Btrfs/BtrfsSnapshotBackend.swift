import CBtrfsUtil
import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// Snapshots of mounted btrfs filesystems, through libbtrfsutil (subvolumes from
/// the top level, id 5, so snapshots outside the mounted subvolume are found) and
/// the quota tree (sizes). The subvolumes are listed plain; owners recognise their
/// snapshots afterwards (`OwnerClassification`), reading each snapshot's files through
/// its mounted path, and only then are clones in use and sizes found (`finishListing`).
public struct BtrfsSnapshotBackend: SnapshotBackend, NestedInListing {
    public var mountTable: any MountTable
    /// Where the owners' files under /etc are.
    public var host: HostRoot
    /// Root lists every subvolume; anyone else gets the unprivileged iteration.
    public var isRoot: Bool
    /// Directories this backend opened for the `_fd` calls of a deletion run; closed
    /// when the last copy of the backend goes, so an in-process run leaves no mount busy.
    let roots = FilesystemRoots()
    /// The search keys of the last backup-chain lookup (`chainRelatives`), shared by copies.
    let chainKeys = ChainKeys()
    /// What each deletion asks of the mount table, kept while the table is unchanged.
    let mountIndexes = MountIndexes()

    public init(host: HostRoot = .system, mountTable: (any MountTable)? = nil, isRoot: Bool = geteuid() == 0) {
        self.mountTable = mountTable ?? ProcMountTable(host: host); self.host = host; self.isRoot = isRoot
    }

    public func mountedFilesystems() throws -> [Filesystem] {
        BtrfsMounts.filesystems(from: try mountTable.mounts())
    }

    public func filesystem(containing path: String) throws -> Filesystem {
        guard try BtrfsMounts.isBtrfs(path) else {
            let resolved = realPath(path) ?? path
            let type =
                BtrfsMounts.fsType(of: resolved, in: (try? mountTable.mounts()) ?? [])
                ?? "a filesystem other than btrfs"
            throw RuntimeError("\(path) is on \(type): it has no btrfs snapshots")
        }
        let uuid = try BtrfsMounts.fsid(of: directory(of: path))
        guard let filesystem = try mountedFilesystems().first(where: { $0.uuid == uuid }) else {
            throw RuntimeError("\(path) is on btrfs \(uuid), which the mount table does not show")
        }
        return filesystem
    }

    public func resolvedPath(_ path: String) -> String? { realPath(path) }

    public var workingDirectory: String { Files.workingDirectory }

    /// btrfs folds the subvolume id into statfs's f_fsid (the fsid's words xored
    /// pairwise, then the id), so one statfs tells filesystem and subvolume; the
    /// filesystem is the one whose fsid leaves a 32-bit id.
    public func locate(_ path: String, among filesystems: [Filesystem]) -> VolumeLocation? {
        var info = statfs()
        guard ByteText.withCString(path, { statfs($0, &info) }) == 0, Int(info.f_type) == BtrfsMounts.superMagic else {
            return nil
        }
        let (high, low) = withUnsafeBytes(of: info.f_fsid) {
            ($0.load(as: UInt32.self), $0.load(fromByteOffset: 4, as: UInt32.self))
        }
        for filesystem in filesystems {
            guard let words = BtrfsMounts.fsidWords(filesystem.uuid), high ^ (words.0 ^ words.2) == 0 else { continue }
            return VolumeLocation(filesystem: filesystem, volumeID: UInt64(low ^ (words.1 ^ words.3)))
        }
        return nil
    }

    public func subvolumes(of filesystem: Filesystem, sizes: SizeMode) throws -> VolumeListing {
        if sizes == .exact, !isRoot { throw NeedsRootError.exactSizes }
        var warnings: [String] = []
        var found =
            try isRoot ? everySubvolume(of: filesystem) : readableSubvolumes(of: filesystem, warnings: &warnings)
        let defaultID = isRoot ? try? defaultSubvolume(of: filesystem) : nil
        let reach = MountReach(filesystem)
        for index in found.indices {
            found[index].mountpoints = reach.mountpoints(ofSubvolume: found[index].id, path: found[index].path)
            found[index].mountedPath = reach.mountedPath(
                ofTopLevelPath: found[index].path, besideItsOwnMounts: !found[index].mountpoints.isEmpty)
            found[index].isDefault = found[index].id == defaultID
        }
        BtrfsMounts.markMountsInside(&found, table: try mountTable.mounts())
        var listing = VolumeListing(filesystem: filesystem, subvolumes: consume found, sizes: .none, warnings: warnings)
        listing.ownerFacts = OwnerFacts(files: .host, timeZone: .current)
        return listing
    }

    /// The clone rule needs the owners' verdicts (only plain writable snapshots are
    /// looked at), and the sizes' warnings follow the owners' in the listing.
    public func finishListing(_ listing: inout VolumeListing, sizes: SizeMode) throws {
        CloneChanges.mark(&listing, directory: isRoot ? try roots.directory(of: listing.filesystem) : nil)
        if sizes == .quota || sizes == .auto { try attachQuotaSizes(to: &listing) }
        if sizes == .exact || (sizes == .auto && listing.sizes == .none && isRoot) {
            listing.sizeNote = nil
            try attachExactSizes(to: &listing)
        }
    }

    // MARK: pieces

    /// Every subvolume below the top level (needs CAP_SYS_ADMIN), read in bulk from the root tree.
    /// The directory stays open for the run (`roots`): deletion relies on it (`currentState`).
    func everySubvolume(of filesystem: Filesystem) throws -> [Volume] {
        try RootTree(directory: try roots.directory(of: filesystem)).subvolumes()
    }

    /// Without root: the subvolumes below each mount that this user can read. The
    /// kernel skips the rest silently, so the listing says it may be incomplete.
    func readableSubvolumes(of filesystem: Filesystem, warnings: inout [String]) throws -> [Volume] {
        var byID: [UInt64: Volume] = [:]
        var order: [UInt64] = []
        for mount in filesystem.mounts {
            let prefix = String(mount.subvolumePath.drop { $0 == "/" })
            do {
                let iterator = try SubvolumeIterator(try FileDescriptor(directory: mount.mountpoint), top: 0)
                while let (path, info) = try iterator.next() {
                    guard byID[info.id] == nil else { continue }
                    byID[info.id] = Volume(path: prefix.isEmpty ? path : prefix + "/" + path, info: info)
                    order.append(info.id)
                }
            } catch {
                warnings.append("cannot list subvolumes below \(mount.mountpoint): \(error)")
            }
        }
        warnings.append(
            "not root: only subvolumes below the mounts of \(filesystem.mountpoint) that this user can read are listed; the listing may be incomplete"
        )
        return order.compactMap { byID[$0] }
    }

    func defaultSubvolume(of filesystem: Filesystem) throws -> UInt64 {
        let directory = try FileDescriptor(directory: filesystem.mountpoint)
        return try BtrfsQuery.defaultSubvolume(directory.fd, path: filesystem.mountpoint)
    }

    func attachQuotaSizes(to listing: inout VolumeListing) throws {
        let mountpoint = listing.filesystem.mountpoint
        guard isRoot else {
            listing.sizeNote = "reading quota sizes needs root: sizes unknown"
            return
        }
        let tree = try QuotaTree.read(try FileDescriptor(directory: mountpoint), mountpoint: mountpoint)
        if let problem = tree.problem {
            listing.sizeNote = problem
            return
        }
        listing.sizes = .quota
        for index in listing.subvolumes.indices {
            guard let size = tree.sizes[listing.subvolumes[index].id] else { continue }
            listing.subvolumes[index].referenced = size.referenced
            listing.subvolumes[index].exclusive = size.exclusive
        }
    }

    /// The directory to open for `path`: itself, or its parent when it is a file.
    private func directory(of path: String) -> String {
        var info = stat()
        guard ByteText.withCString(path, { stat($0, &info) }) == 0, info.st_mode & S_IFMT != S_IFDIR else {
            return path
        }
        return PathText.parent(of: path)
    }
}
