import CBtrfsUtil
import CarveCore
import Glibc

/// Reads how a mounted btrfs filesystem has allocated one of its devices: the device
/// extents from the device tree (BTRFS_IOC_TREE_SEARCH, as `btrfs inspect-internal
/// min-dev-size` reads them) and the per-type totals from BTRFS_IOC_SPACE_INFO.
struct BtrfsAllocationReader {
    let mountpoint: String

    func allocation(of device: BlockDevice) throws -> BtrfsAllocation {
        let directory = try FileDescriptor(directory: mountpoint)
        // Keep the descriptor open until the last ioctl, not only until its last mention.
        return try withExtendedLifetime(directory) {
            let fd = directory.fd
            let members = try self.members(fd: fd)
            guard let this = members.first(where: { isDevice(device, $0.path) }) else {
                throw RuntimeError("\(device.path) is not a device of the btrfs filesystem mounted at \(mountpoint)")
            }
            let reserve = try globalReserve(fd: fd)
            let (groups, dataExtents) = try blockGroupsAndDataExtents(directory)
            let others = members.filter { $0.member.devid != this.member.devid }.map(\.member)
            var memberExtents: [UInt64: [BtrfsAllocation.DeviceExtent]] = [:]
            for other in others { memberExtents[other.devid] = try deviceExtents(devid: other.devid, directory) }
            return BtrfsAllocation(
                deviceSize: this.member.size, extents: try deviceExtents(devid: this.member.devid, directory),
                blockGroups: groups, dataExtents: dataExtents, globalReserve: reserve, devid: this.member.devid,
                otherMembers: others, memberExtents: memberExtents
            )
        }
    }

    /// Every device of the filesystem (BTRFS_IOC_DEV_INFO for each id up to FS_INFO's
    /// max_id; ids of removed devices answer ENODEV): its id, size, allocation and path.
    func members(fd: Int32) throws -> [(member: BtrfsAllocation.Member, path: String)] {
        let info = try BtrfsQuery.filesystemInfo(fd, path: mountpoint)
        var found: [(member: BtrfsAllocation.Member, path: String)] = []
        for devid in 1...max(1, info.max_id) {
            var args = btrfs_ioctl_dev_info_args()
            args.devid = devid
            guard carve_ioctl_ptr(fd, carve_BTRFS_IOC_DEV_INFO(), &args) == 0 else {
                if errno == ENODEV { continue }
                throw SystemCallError(
                    "cannot read btrfs device \(devid) of \(mountpoint)", call: "ioctl(BTRFS_IOC_DEV_INFO)",
                    errno: errno)
            }
            let path = withUnsafeBytes(of: &args.path) { ByteText.decode($0.prefix { $0 != 0 }) }
            found.append(
                (BtrfsAllocation.Member(devid: devid, size: args.total_bytes, allocated: args.bytes_used), path))
        }
        return found
    }

    /// True when `path` (as btrfs names a device) is `device`: the same path or device number.
    func isDevice(_ device: BlockDevice, _ path: String) -> Bool {
        var status = stat()
        return path == device.path
            || (ByteText.withCString(path, { stat($0, &status) }) == 0
                && UInt64(status.st_rdev) == device.number.packed)
    }

    /// Every DEV_EXTENT item of `devid` in the device tree.
    func deviceExtents(devid: UInt64, _ directory: FileDescriptor) throws -> [BtrfsAllocation.DeviceExtent] {
        var extents: [BtrfsAllocation.DeviceExtent] = []
        let extentKey = BtrfsKey.deviceExtent
        try treeSearch(directory, tree: BtrfsKey.deviceTree, objectids: devid...devid, types: extentKey...extentKey) {
            key, item in
            // struct btrfs_dev_extent: chunk_tree, chunk_objectid, chunk_offset, length.
            let chunk = UInt64(littleEndian: item.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
            let length = UInt64(littleEndian: item.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
            extents.append(BtrfsAllocation.DeviceExtent(start: key.offset, length: length, chunk: chunk))
        }
        return extents
    }

    /// Every BLOCK_GROUP_ITEM and the data EXTENT_ITEMs, in one pass over the extent
    /// tree; block groups come from the block group tree on filesystems made with
    /// `-O block-group-tree`.
    func blockGroupsAndDataExtents(
        _ directory: FileDescriptor
    ) throws -> ([BtrfsAllocation.BlockGroup], [BtrfsAllocation.DataExtent]) {
        var groups: [BtrfsAllocation.BlockGroup] = [], items: [BtrfsAllocation.DataExtent] = []
        let extentItem = BtrfsKey.extentItem, groupItem = BtrfsKey.blockGroupItem
        func collect(_ key: (objectid: UInt64, type: UInt32, offset: UInt64), _ item: UnsafeRawPointer) {
            if key.type == extentItem {
                items.append(BtrfsAllocation.DataExtent(start: key.objectid, length: key.offset))
            } else if key.type == groupItem {
                // struct btrfs_block_group_item: used, chunk_objectid, flags.
                let used = UInt64(littleEndian: item.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
                let flags = UInt64(littleEndian: item.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
                guard let kind = Self.groupKind(of: flags) else { return }
                groups.append(
                    BtrfsAllocation.BlockGroup(
                        start: key.objectid, length: key.offset, used: used, kind: kind,
                        profile: Self.profile(of: flags)))
            }
        }
        try treeSearch(
            directory, tree: BtrfsKey.extentTree, objectids: 0...UInt64.max, types: extentItem...groupItem, collect)
        if groups.isEmpty {
            try treeSearch(
                directory, tree: BtrfsKey.blockGroupTree, objectids: 0...UInt64.max, types: groupItem...groupItem,
                collect)
        }
        // EXTENT_ITEMs also describe tree blocks on filesystems without skinny metadata.
        let data = groups.filter { $0.kind == .data }
        let dataExtents = items.filter { item in
            data.contains { item.start >= $0.start && item.start < $0.start + $0.length }
        }
        return (groups, dataExtents)
    }

    /// The items of `tree` with a type in `types` and an objectid in `objectids`, through
    /// the shared TreeSearch; a tree the filesystem lacks (ENOENT) has none.
    func treeSearch(
        _ directory: FileDescriptor, tree: UInt64, objectids: ClosedRange<UInt64>, types: ClosedRange<UInt32>,
        _ body: ((objectid: UInt64, type: UInt32, offset: UInt64), UnsafeRawPointer) throws -> Void
    ) throws {
        do {
            try TreeSearch(directory).forEachItem(
                tree: tree, from: TreeSearch.Key(objectid: objectids.lowerBound, type: types.lowerBound, offset: 0),
                to: TreeSearch.Key(objectid: objectids.upperBound, type: types.upperBound, offset: .max)
            ) { item in
                // The kernel bounds whole keys: items of other types lie in between.
                guard types.contains(item.type), let base = item.data.baseAddress else { return }
                try body((item.objectid, item.type, item.offset), base)
            }
        } catch let error as SystemCallError where error.errno == ENOENT {
            return
        }
    }

    /// The global reserve's size from BTRFS_IOC_SPACE_INFO: metadata space the
    /// kernel keeps for itself, which a shrink must leave room for.
    func globalReserve(fd: Int32) throws -> UInt64 {
        try SpaceInfo.read(fd: fd, mountpoint: mountpoint)
            .filter { $0.flags & SpaceInfo.globalReserveFlag != 0 }.reduce(0) { $0 + $1.total_bytes }
    }

    /// A block group's profile from its flags; no profile bit is single.
    static func profile(of flags: UInt64) -> BtrfsAllocation.Profile {
        let profiles: [(UInt64, BtrfsAllocation.Profile)] = [
            (BTRFS_BLOCK_GROUP_DUP, .dup), (BTRFS_BLOCK_GROUP_RAID0, .raid0), (BTRFS_BLOCK_GROUP_RAID1, .raid1),
            (BTRFS_BLOCK_GROUP_RAID1C3, .raid1c3), (BTRFS_BLOCK_GROUP_RAID1C4, .raid1c4),
            (BTRFS_BLOCK_GROUP_RAID10, .raid10),
            (BTRFS_BLOCK_GROUP_RAID5, .raid5), (BTRFS_BLOCK_GROUP_RAID6, .raid6),
        ]
        return profiles.first { flags & $0.0 != 0 }?.1 ?? .single
    }

    /// A block group's kind from its flags; mixed data+metadata groups count as data.
    static func groupKind(of flags: UInt64) -> BtrfsAllocation.Kind? {
        if flags & UInt64(BTRFS_BLOCK_GROUP_DATA) != 0 { return .data }
        if flags & UInt64(BTRFS_BLOCK_GROUP_METADATA) != 0 { return .metadata }
        if flags & UInt64(BTRFS_BLOCK_GROUP_SYSTEM) != 0 { return .system }
        return nil
    }
}
