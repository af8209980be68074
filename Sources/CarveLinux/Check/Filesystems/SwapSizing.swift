import CarveCore
import Glibc

/// A swap area's figures: mkswap's minimum, and whether /proc/swaps has it active.
struct SwapSizing: LinuxFilesystemRoom {
    let types = ["swap"]

    func figures(of device: BlockDevice, mountpoint: String?, host: HostRoot) throws -> FilesystemFigures {
        try swap(device, host: host)
    }

    /// Swap holds nothing to keep: its minimum is mkswap's (ten pages).
    func swap(_ device: BlockDevice, host: HostRoot) throws -> FilesystemFigures {
        // A /proc/swaps carve cannot read tells no swap area: `check` answers on the rest.
        let swaps = Files.text(host.swaps).flatMap { try? SwapList.devicePaths($0) } ?? []
        let real = realPath(device.path) ?? device.path
        let active = swaps.contains { $0 == device.path || realPath($0) == real }
        return FilesystemFigures(
            fsType: "swap", size: device.size, minimum: 10 * UInt64(getpagesize()), source: "mkswap's minimum",
            busy: active ? "an active swap area (/proc/swaps)" : nil
        )
    }
}
