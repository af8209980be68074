import Glibc
import CarveCore

/// The mount table as the kernel reports it for this process: /proc/self/mountinfo.
public struct ProcMountTable: MountTable {
    public let path: String
    public init(path: String = "/proc/self/mountinfo") { self.path = path }

    public func mounts() throws -> [MountEntry] {
        guard let data = Files.contents(path) else {
            throw SystemCallError("cannot read \(path)", call: "open", errno: ENOENT)
        }
        return try MountInfo.parse(ByteText.decode(data))
    }
}
