import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// The space of a mounted filesystem from statvfs(3), as lsblk reads it for FSSIZE,
/// FSUSED, FSAVAIL and FSUSE%.
public struct StatvfsSpace: FilesystemSpaceSource {
    public init() {}

    public func usage(at mountpoint: String) -> FilesystemUsage? { try? Self.read(mountpoint) }

    /// statvfs(3) of `mountpoint`, or the error saying why not.
    static func read(_ mountpoint: String) throws(SystemCallError) -> FilesystemUsage {
        var info = statvfs()
        guard ByteText.withCString(mountpoint, { statvfs($0, &info) }) == 0 else {
            throw SystemCallError("cannot read the space of \(mountpoint)", call: "statvfs", errno: errno)
        }
        return FilesystemUsage(
            fragmentSize: UInt64(info.f_frsize), blocks: UInt64(info.f_blocks),
            freeBlocks: UInt64(info.f_bfree), availableBlocks: UInt64(info.f_bavail))
    }
}
