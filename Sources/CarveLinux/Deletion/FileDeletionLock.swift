import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// The deletion lock: flock(2) on a file under /run/lock, with the holder's pid
/// written in it so that a second carve can say who holds it. The kernel drops
/// the lock when the holder dies, even by SIGKILL: no stale lock to clean up.
public struct FileDeletionLock: DeletionLock {
    public let path: String

    public init(path: String) { self.path = path }

    /// The host's /run/lock/carve.lock, or `CARVE_LOCK_FILE` (tests run side by side with a real carve).
    public init(host: HostRoot = .system) {
        path =
            getenv("CARVE_LOCK_FILE").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? host.deletionLock
    }

    public func acquire(timeout: Double) throws -> any LockHolder {
        let file = try FileDescriptor.open(
            path, O_RDWR | O_CREAT | O_NOFOLLOW, mode: 0o644, "cannot open lock file \(path)")
        let fd = file.fd
        let start = Date()
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                throw SystemCallError("cannot lock \(path)", call: "flock", errno: code)
            }
            let waited = Date().timeIntervalSince(start)
            if waited >= timeout {
                let holder = Self.holderPID(fd)
                throw LockedError(path: path, holder: holder, waited: timeout)
            }
            usleep(UInt32(min(0.1, timeout - waited) * 1_000_000) + 1)
        }
        let pid = "\(getpid())\n"
        guard ftruncate(fd, 0) == 0, pwrite(fd, pid, pid.utf8.count, 0) == pid.utf8.count else {
            let code = errno
            throw SystemCallError("cannot write the pid to lock file \(path)", call: "pwrite", errno: code)
        }
        return FileLockHolder(file)
    }

    private static func holderPID(_ fd: Int32) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = pread(fd, &bytes, bytes.count, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: bytes[..<count], as: UTF8.self).trimmingWhitespace)
    }
}

/// The held lock: released (and the pid cleared) by `release` or when the holder goes away.
final class FileLockHolder: LockHolder, @unchecked Sendable {
    private let lock = Lock()
    private var file: FileDescriptor?

    init(_ file: FileDescriptor) { self.file = file }

    /// Closing the file unlocks it.
    func release() {
        lock.lock()
        defer { lock.unlock() }
        guard let file else { return }
        // Clear the pid first, so nobody reads a stale holder once it is unlocked.
        _ = ftruncate(file.fd, 0)
        self.file = nil
    }

    deinit { release() }
}
