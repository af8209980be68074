import CarveCore
import Glibc

/// Finds filesystem figures on this machine: btrfs from its ioctls, ext2/3/4 from
/// resize2fs and dumpe2fs, ntfs from ntfsresize, swap from /proc/swaps; anything
/// else "cannot tell". Read-only: every tool is run in its report-only mode.
public struct LinuxFilesystemSizer: FilesystemSizer {
    /// Where /proc/swaps is.
    public var host: HostRoot
    public init(host: HostRoot = .system) { self.host = host }

    public func figures(of device: BlockDevice, mountpoint: String?) throws -> FilesystemFigures {
        let type = device.properties.fsType
        switch type {
        case "btrfs": return try btrfs(device, mountpoint: mountpoint)
        case "ext2", "ext3", "ext4": return try ext(device, type: type!, mountpoint: mountpoint)
        case "ntfs": return try ntfs(device, mountpoint: mountpoint)
        case "swap": return try swap(device)
        default:
            return FilesystemFigures(
                fsType: type, used: mountpoint.flatMap { try? usedBytes(at: $0) }, source: "nothing",
                note: "carve cannot tell the minimum size of \(type ?? "an unknown filesystem")"
            )
        }
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

    /// Unmounted: `resize2fs -P` blocks times the block size from `dumpe2fs -h`, the
    /// figure resize2fs itself refuses to go below. Mounted: statvfs's used bytes only.
    func ext(_ device: BlockDevice, type: String, mountpoint: String?) throws -> FilesystemFigures {
        if let mountpoint {
            let used = try usedBytes(at: mountpoint)
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
            minimum: Self.roundUpToMiB(minimumBlocks * blockSize), source: "resize2fs -P",
            note: "resize2fs asks for `e2fsck -f \(device.path)` before it shrinks", blockSize: blockSize
        )
    }

    func ntfs(_ device: BlockDevice, mountpoint: String?) throws -> FilesystemFigures {
        guard mountpoint == nil else {
            return FilesystemFigures(
                fsType: "ntfs", source: "nothing", note: "ntfsresize reads the minimum only while unmounted")
        }
        guard let text = try? ToolRun.output(["ntfsresize", "--info", "--no-action", "--force", device.path]) else {
            return FilesystemFigures(
                fsType: "ntfs", source: "nothing", note: "ntfsresize (ntfs-3g) is not installed or failed: cannot tell")
        }
        return FilesystemFigures(
            fsType: "ntfs", minimum: Self.roundUpToMiB(try ResizeToolOutput.ntfsresizeMinimumBytes(text)),
            source: "ntfsresize --info"
        )
    }

    /// Swap holds nothing to keep: its minimum is mkswap's (ten pages).
    func swap(_ device: BlockDevice) throws -> FilesystemFigures {
        // A /proc/swaps carve cannot read tells no swap area: `check` answers on the rest.
        let swaps = Files.text(host.swaps).flatMap { try? SwapList.devicePaths($0) } ?? []
        let real = realPath(device.path) ?? device.path
        let active = swaps.contains { $0 == device.path || realPath($0) == real }
        return FilesystemFigures(
            fsType: "swap", size: device.size, minimum: 10 * UInt64(getpagesize()), source: "mkswap's minimum",
            busy: active ? "an active swap area (/proc/swaps)" : nil
        )
    }

    func usedBytes(at mountpoint: String) throws -> UInt64 { try StatvfsSpace.read(mountpoint).used }

    static func roundUpToMiB(_ bytes: UInt64) -> UInt64 { ((bytes + (1 << 20) - 1) >> 20) << 20 }
}

/// Runs a report-only tool in the C locale (its output is parsed) and returns its stdout.
enum ToolRun {
    static func output(_ arguments: [String]) throws -> String {
        let run = try ChildProcess.runTool(arguments, environment: ["LC_ALL": "C"])
        guard run.status == 0 else {
            let message = String(decoding: run.stderr, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
            // As root, a refusal (a sandbox, a security module) is a failure with the tool's words.
            if geteuid() != 0,
                message.containsText("Permission denied") || message.containsText("Operation not permitted")
            {
                throw NeedsRootError("running \(arguments.joined(separator: " "))")
            }
            throw RuntimeError("\(arguments.joined(separator: " ")) exited \(run.status): \(message)")
        }
        return String(decoding: run.stdout, as: UTF8.self)
    }
}
