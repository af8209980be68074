import CarveCore

/// One file extent item of a fake filesystem's tree: inode `inode` of subvolume
/// `subvolume` points into `extent`, under `path` (nil: no name left) with `links` names.
public struct FakeFileReference: Sendable, Hashable {
    public var subvolume: UInt64
    public var inode: UInt64
    public var extent: ExtentKey
    public var path: String?
    public var links: Int
    public init(_ subvolume: UInt64, inode: UInt64, extent: ExtentKey, path: String?, links: Int = 1) {
        self.subvolume = subvolume; self.inode = inode; self.extent = extent; self.path = path; self.links = links
    }

    /// The exact sizes these references make, numbered as `subvolumes` are.
    public static func exact(_ references: [FakeFileReference], subvolumes: [UInt64]) -> ExactSizes {
        var map = ExtentMap(subvolumes: subvolumes)
        for reference in references { map.addReferences(subvolume: reference.subvolume, [reference.extent]) }
        return ExactSizes(map: map, scan: ExtentScanReport(), nodeSize: 16384)
    }
}

/// Which files only a set holds, from the stored references through the same
/// accounting as the btrfs reader (`PinnedExtents`): every reference counts, as if
/// every tree were read whole.
extension FakeSnapshotBackend: PinnedFileReading {
    public func pinnedFiles(of set: [UInt64], on filesystem: Filesystem, exact: ExactSizes?) throws -> PinnedFiles {
        try begin(.pinnedFiles(filesystem.uuid))
        guard let fake = filesystems.first(where: { $0.filesystem.uuid == filesystem.uuid }) else {
            throw RuntimeError("no btrfs filesystem \(filesystem.uuid)")
        }
        guard let sizes = exact ?? fake.exact else { throw RuntimeError("exact sizes are not implemented yet") }
        var extents = PinnedExtents(map: sizes.map, deleting: set)
        for reference in fake.files {
            if let position = extents.position(of: reference.extent, firstHeldBy: reference.subvolume) {
                extents.attribute(position, to: reference.inode)
            }
        }
        var files = extents.files(lineages: PinnedExtents.lineages(of: fake.subvolumes))
        for index in files.indices {
            let file = files[index]
            for tree in file.namingCandidates {
                guard let named = fake.files.first(where: { $0.subvolume == tree && $0.inode == file.inode }) else {
                    continue
                }
                files[index].namedIn.id = tree
                files[index].path = named.path
                files[index].links = named.links
                break
            }
        }
        var pinned = PinnedFiles(
            files: files, reclaim: sizes.reclaim(deleting: set), unattributed: extents.unattributedBytes)
        // crc32c on 4 KiB sectors, as mkfs.btrfs makes them by default.
        pinned.checksumBytes = pinned.reclaim.data / 4096 * 4
        return pinned
    }
}
