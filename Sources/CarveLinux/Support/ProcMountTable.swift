import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// The mount table as the kernel reports it for this process: /proc/self/mountinfo
/// under the host root. The file stays open and is re-read only when it changed: the
/// kernel marks an open mountinfo with POLLPRI after any mount or unmount (proc(5)),
/// so asking again before each deletion costs one poll(2), not a parse, and a mount
/// made after the plan is still seen. (A fixture, a regular file, is read once.)
public final class ProcMountTable: MountTable, @unchecked Sendable {
    public let path: String
    private let lock = Lock()
    private var file: FileDescriptor?
    private var cached: [MountEntry] = []
    /// False until a read succeeds and after one fails: then the next call reads
    /// again, whatever poll says, rather than trust an empty or old table.
    private var valid = false
    /// Counts the reads: what is kept from one table read is good while it stays.
    private var reads = 0

    public init(host: HostRoot = .system) { path = host.mountInfo }

    public func mounts() throws -> [MountEntry] { try versionedMounts().entries }

    public func versionedMounts() throws -> (entries: [MountEntry], version: Int?) {
        lock.lock()
        defer { lock.unlock() }
        let file = try self.file ?? FileDescriptor.open(path, O_RDONLY, "cannot read \(path)")
        self.file = file
        if !valid || changed(file) {
            valid = false
            // Reading the whole file from the start also re-arms the change event.
            cached = try MountInfo.parse(ByteText.decode(try Files.contents(of: file.fd, "cannot read \(path)")))
            valid = true
            reads += 1
        }
        return (cached, reads)
    }

    private func changed(_ file: FileDescriptor) -> Bool {
        var event = pollfd(fd: file.fd, events: Int16(POLLPRI), revents: 0)
        return poll(&event, 1, 0) != 0
    }
}
