import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// The mount table, re-read only when it changed. The kernel marks an open
/// /proc/self/mountinfo with POLLPRI after any mount or unmount (proc(5)), so the
/// check before each deletion costs one poll(2) instead of a parse, and a mount made
/// after the plan is still seen.
final class MountTableWatcher: @unchecked Sendable {
    static let shared = MountTableWatcher(path: "/proc/self/mountinfo")

    private let path: String
    private let lock = Lock()
    private var fd: Int32 = -1
    private var cached: [MountEntry] = []
    /// False until a read succeeds and after one fails: then the next call reads
    /// again, whatever poll says, rather than trust an empty or old table.
    private var valid = false
    /// Per filesystem UUID: where each subvolume id is mounted, derived from `cached`
    /// and dropped with it, so a run works it out once per mount table, not per snapshot.
    private var subvolumeMounts: [String: [UInt64: [String]]] = [:]

    init(path: String) { self.path = path }

    deinit { if fd >= 0 { close(fd) } }

    /// Every mountpoint of subvolume `id` of `filesystem` in the current table, as
    /// `-o subvol=` or a bind mount of a path in it: the btrfs mounts that share the
    /// device number of the filesystem's own mounts and carry `subvolid=id`.
    func mountpoints(ofSubvolume id: UInt64, on filesystem: Filesystem) throws -> [String] {
        lock.lock()
        defer { lock.unlock() }
        try refresh()
        if let known = subvolumeMounts[filesystem.uuid] { return known[id] ?? [] }
        let btrfs = cached.filter { $0.fsType == "btrfs" }
        let ours = Set(filesystem.mounts.map(\.mountpoint))
        let numbers = Set(btrfs.filter { ours.contains($0.mountpoint) }.map(\.number))
        var byID: [UInt64: [String]] = [:]
        for entry in btrfs where numbers.contains(entry.number) {
            guard let subvolume = entry.superOption("subvolid").flatMap(UInt64.init) else { continue }
            byID[subvolume, default: []].append(entry.mountpoint)
        }
        subvolumeMounts[filesystem.uuid] = byID
        return byID[id] ?? []
    }

    /// Opens the file on first use and re-reads it when the kernel says it changed.
    private func refresh() throws {
        if fd < 0 {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw SystemCallError("cannot read \(path)", call: "open", errno: errno)
            }
        }
        if !valid || changed() { try reread() }
    }

    private func changed() -> Bool {
        var event = pollfd(fd: fd, events: Int16(POLLPRI), revents: 0)
        return poll(&event, 1, 0) != 0
    }

    private func reread() throws {
        valid = false
        subvolumeMounts = [:]
        cached = try read()
        valid = true
    }

    /// Reads the whole file from the start; reading it also re-arms the change event.
    private func read() throws -> [MountEntry] {
        let data = try Files.contents(of: fd, "cannot read \(path)")
        return try MountInfo.parse(ByteText.decode(data))
    }
}
