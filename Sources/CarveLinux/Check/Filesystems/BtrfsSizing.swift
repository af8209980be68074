import CarveCore
import Glibc

/// btrfs's figures from its own ioctls, while mounted: block groups and device extents.
struct BtrfsSizing: LinuxFilesystemRoom {
    let types = ["btrfs"]

    func figures(of device: BlockDevice, mountpoint: String?, host: HostRoot) throws -> FilesystemFigures {
        try btrfs(device, mountpoint: mountpoint)
    }

    func btrfs(_ device: BlockDevice, mountpoint: String?) throws -> FilesystemFigures {
        guard let mountpoint else {
            return FilesystemFigures(
                fsType: "btrfs", source: "nothing",
                note: "btrfs reports its allocation only while mounted: mount \(device.path) to see its minimum"
            )
        }
        let allocation = try BtrfsAllocationReader(mountpoint: mountpoint).allocation(of: device)
        if let striped = allocation.stripedProfile {
            return FilesystemFigures(
                fsType: "btrfs", size: allocation.deviceSize, btrfs: allocation, source: "nothing",
                note:
                    "\(striped.rawValue) stripes each chunk over several devices: carve cannot tell the minimum of one of them yet"
            )
        }
        let minimum = allocation.minimum
        let afterBalance = allocation.minimumAfterBalance()
        return FilesystemFigures(
            fsType: "btrfs", size: allocation.deviceSize,
            used: allocation.blockGroups.reduce(0) { $0 + $1.used * allocation.copies(of: $1) },
            minimum: minimum, minimumAfterBalance: afterBalance < minimum ? afterBalance : nil, btrfs: allocation,
            source: "btrfs block groups and device extents", blockSize: try sectorSize(mountpoint)
        )
    }

    /// btrfs's sector size (BTRFS_IOC_FS_INFO): `btrfs filesystem resize` rounds down to it.
    func sectorSize(_ mountpoint: String) throws -> UInt64 {
        let directory = try FileDescriptor(directory: mountpoint)
        return try withExtendedLifetime(directory) {
            UInt64(try BtrfsQuery.filesystemInfo(directory.fd, path: mountpoint).sectorsize)
        }
    }
}
