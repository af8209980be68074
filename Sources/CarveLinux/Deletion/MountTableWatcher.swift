import CarveCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The mount table, re-read only when it changed. The kernel marks an open
/// /proc/self/mountinfo with POLLPRI after any mount or unmount (proc(5)), so the
/// check before each deletion costs one poll(2) instead of a parse, and a mount made
/// after the plan is still seen.
final class MountTableWatcher: @unchecked Sendable {
    static let shared = MountTableWatcher()

    private let lock = NSLock()
    private var fd: Int32 = -1
    private var cached: [MountEntry] = []

    func mounts() throws -> [MountEntry] {
        lock.lock()
        defer { lock.unlock() }
        if fd < 0 {
            fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw SystemCallError("cannot read /proc/self/mountinfo", call: "open", errno: errno)
            }
            cached = try read()
        } else if changed() {
            cached = try read()
        }
        return cached
    }

    private func changed() -> Bool {
        var event = pollfd(fd: fd, events: Int16(POLLPRI), revents: 0)
        return poll(&event, 1, 0) != 0
    }

    /// Reads the whole file from the start; reading it also re-arms the change event.
    private func read() throws -> [MountEntry] {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var offset: off_t = 0
        while true {
            let count = pread(fd, &buffer, buffer.count, offset)
            guard count >= 0 else {
                throw SystemCallError("cannot read /proc/self/mountinfo", call: "pread", errno: errno)
            }
            if count == 0 { break }
            data.append(contentsOf: buffer[..<count])
            offset += off_t(count)
        }
        return try MountInfo.parse(String(decoding: data, as: UTF8.self))
    }
}
