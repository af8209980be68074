import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// Names the machine's block devices from /sys/class/block, as lsblk does: one
/// directory read. (libudev's enumeration builds a device object per entry, some
/// thirty system calls each, only for carve to keep the name.)
public struct SysfsBlockEnumerator: BlockDeviceEnumerator {
    public let host: HostRoot
    public init(host: HostRoot = .system) { self.host = host }

    public func blockDevices() throws -> [EnumeratedDevice] {
        let path = host.blockClass
        let directory = try DirectoryAccess.open(path, "cannot list block devices")
        // The node is named after the kernel name, '!' standing for '/' (cciss!c0d0).
        return try DirectoryAccess.entryNames(consuming: directory, path).map(DirectoryAccess.text).sorted().map {
            name in
            EnumeratedDevice(
                name: name,
                node: "/dev/" + name.split(separator: "!", omittingEmptySubsequences: false).joined(separator: "/"))
        }
    }
}
