import CarveCore
import Glibc

/// ext2/3/4's figures from resize2fs and dumpe2fs, in their report-only modes.
struct ExtSizing: LinuxFilesystemRoom {
    let types = ["ext2", "ext3", "ext4"]

    func figures(of device: BlockDevice, mountpoint: String?, host: HostRoot) throws -> FilesystemFigures {
        try ext(device, type: device.properties.fsType ?? "ext4", mountpoint: mountpoint)
    }

    /// Unmounted: `resize2fs -P` blocks times the block size from `dumpe2fs -h`, the
    /// figure resize2fs itself refuses to go below. Mounted: statvfs's used bytes only.
    func ext(_ device: BlockDevice, type: String, mountpoint: String?) throws -> FilesystemFigures {
        if let mountpoint {
            let used = try StatvfsSpace.read(mountpoint).used
            return FilesystemFigures(
                fsType: type, used: used, source: "statvfs on \(mountpoint)",
                note: "\(type) is mounted: resize2fs computes its minimum only while it is unmounted "
                    + "(it uses \(ByteSize.format(used)) now)"
            )
        }
        let header = try ToolRun.output(["dumpe2fs", "-h", device.path])
        let blockSize = try ResizeToolOutput.dumpe2fsField("Block size", in: header)
        let blockCount = try ResizeToolOutput.dumpe2fsField("Block count", in: header)
        let minimumBlocks = try ResizeToolOutput.resize2fsMinimumBlocks(
            try ToolRun.output(["resize2fs", "-P", device.path]))
        let free = (try? ResizeToolOutput.dumpe2fsField("Free blocks", in: header)) ?? 0
        return FilesystemFigures(
            fsType: type, size: blockSize * blockCount, used: blockSize * (blockCount - min(blockCount, free)),
            minimum: LinuxFilesystemSizer.roundUpToMiB(minimumBlocks * blockSize), source: "resize2fs -P",
            note: "resize2fs asks for `e2fsck -f \(device.path)` before it shrinks", blockSize: blockSize
        )
    }
}
