import CarveCore
import Glibc

/// NTFS's minimum from `ntfsresize --info`, while unmounted.
struct NTFSSizing: LinuxFilesystemRoom {
    let types = ["ntfs"]

    func figures(of device: BlockDevice, mountpoint: String?, host: HostRoot) throws -> FilesystemFigures {
        try ntfs(device, mountpoint: mountpoint)
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
            fsType: "ntfs",
            minimum: LinuxFilesystemSizer.roundUpToMiB(try ResizeToolOutput.ntfsresizeMinimumBytes(text)),
            source: "ntfsresize --info"
        )
    }
}
