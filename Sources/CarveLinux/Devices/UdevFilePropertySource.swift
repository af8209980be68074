import CarveCore
import Glibc

/// The udev properties a `--sysroot` dump keeps per device in `DIR/dev/NAME`, read
/// as upstream lsblk reads them there (`UdevPropertyFile`). A device without such a
/// file (older dumps have none) has no record: its columns stay empty, as in lsblk.
public struct UdevFilePropertySource: DevicePropertySource {
    public let name = "udev file"
    public let fields = UdevPropertyFile.fields
    public let host: HostRoot
    /// The largest file read: a udev record is a few kilobytes.
    static let limit = 1 << 20

    public init(host: HostRoot) { self.host = host }

    public func properties(of device: BlockDevice, parent: BlockDevice?) throws -> DeviceProperties? {
        let path = host.path(device.path)
        var info = stat()
        // Only a regular file, as lsblk: a directory, a FIFO or a link loop is no record.
        guard ByteText.withCString(path, { stat($0, &info) }) == 0, info.st_mode & S_IFMT == S_IFREG,
            info.st_size <= UdevFilePropertySource.limit, let bytes = Files.contents(path)
        else { return nil }
        return UdevPropertyFile.parse(bytes)
    }
}
