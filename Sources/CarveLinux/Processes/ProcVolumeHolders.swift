import CarveCore
import Glibc
import Synchronization

/// Which running processes hold a snapshot, as `fuser -m` tells: every process's open
/// files (`/proc/PID/fd/*`), working and root directory (`cwd`, `root`) and memory-mapped
/// files (`map_files/*`) are stat'ed through their magic links, and each btrfs subvolume
/// has a device number of its own, so a held file's `st_dev` names its subvolume
/// whatever mount namespace the process sees it through. `/proc` is read under the host
/// root (a fixture tree in tests).
///
/// A process whose links carve may not read (without CAP_SYS_PTRACE, every process of
/// another user or with capabilities carve lacks) might hold any snapshot: it is named
/// as unseen, never taken for one holding nothing. Only one whose mount namespace shows
/// no mount of the filesystem is left out (its mountinfo is readable to anyone): it
/// could hold a file there only through a descriptor passed in from another namespace,
/// or a mount lazily detached since.
///
/// Reading /proc costs milliseconds (every process, every descriptor), so it is read
/// once when the plan first asks, again after a prompt (`refresh`), and right before a
/// deletion only when the last read is older than `recheckAfter` seconds: a deletion
/// run of a thousand snapshots reads it once or twice, and a process that starts
/// holding a snapshot less than `recheckAfter` before its deletion may be missed (btrfs
/// itself refuses to delete a snapshot that `btrfs send` is reading).
public final class ProcVolumeHolders: VolumeHolders {
    let host: HostRoot
    let recheckAfter: Double
    private struct State {
        var readAt: Double?
        var look = ProcessLook()
        /// The device of each volume's mounted path, once looked up.
        var devices: [String: UInt64?] = [:]
        var commands: [Int32: String] = [:]
        /// Each filesystem's device numbers as mount tables show them, once looked up.
        var filesystemNumbers: [String: Set<DeviceNumber>] = [:]
        /// What `unseen` found for each filesystem in this look: asked for every snapshot.
        var unseenByFilesystem = ByFilesystem<UnseenProcesses?>()
        /// The first look, started by `prefetch` and not yet taken.
        var pending: Background<ProcessLook>?
        /// The named paths' devices, started by `prefetch(devicesOf:)` and not yet taken.
        var pendingDevices: Background<[String: UInt64?]>?
    }
    private let state = Mutex(State())

    public init(host: HostRoot = .system, recheckAfter: Double = 0.5) {
        self.host = host; self.recheckAfter = recheckAfter
    }

    /// Reads /proc on a thread of its own while the snapshots are listed: on two
    /// processors its milliseconds then cost a deletion run no time.
    public func prefetch() {
        let host = self.host
        state.withLock { state in
            guard state.readAt == nil, state.pending == nil else { return }
            state.readAt = Self.now()
            state.pending = Background { ProcessScan(host: host).look() }
        }
    }

    /// A stat per named path, on a thread of its own: a thousand named snapshots cost
    /// the listing's thread no system call here.
    public func prefetch(devicesOf paths: [String]) {
        state.withLock { state in
            guard state.pendingDevices == nil else { return }
            state.pendingDevices = Background {
                Dictionary(paths.map { ($0, Self.device(of: $0)) }, uniquingKeysWith: { first, _ in first })
            }
        }
    }

    public func refresh() {
        state.withLock { state in
            if let pending = state.pending { _ = pending.value }
            state.pending = nil
            state.readAt = nil
        }
    }

    public func holders(of volume: Volume, on filesystem: Filesystem, recheck: Bool) -> VolumeHolding {
        guard let path = volume.mountedPath else { return VolumeHolding() }
        return state.withLock { state in
            if let pending = state.pending {
                state.look = pending.value
                state.pending = nil
                state.unseenByFilesystem.removeAll()
            }
            if let pending = state.pendingDevices {
                if state.devices.isEmpty {
                    state.devices = pending.value
                } else {
                    state.devices.merge(pending.value) { known, _ in known }
                }
                state.pendingDevices = nil
            }
            if state.readAt == nil || (recheck && Self.now() - state.readAt! > recheckAfter) {
                state.look = ProcessScan(host: host).look()
                state.readAt = Self.now()
                state.commands = [:]
                state.unseenByFilesystem.removeAll()
            }
            let device: UInt64?
            if let known = state.devices[path] {
                device = known
            } else {
                device = Self.device(of: path)
                state.devices[path] = device
            }
            let seen = device.flatMap { state.look.byDevice[$0] } ?? []
            return VolumeHolding(
                holders: seen.map { command(of: $0, &state) }, unseen: unseen(on: filesystem, &state))
        }
    }

    /// The processes carve could not look into that might hold something on `filesystem`.
    private func unseen(on filesystem: Filesystem, _ state: inout State) -> UnseenProcesses? {
        if let known = state.unseenByFilesystem.value(for: filesystem.uuid) { return known }
        let found = lookForUnseen(on: filesystem, &state)
        state.unseenByFilesystem.set(found, for: filesystem.uuid)
        return found
    }

    private func lookForUnseen(on filesystem: Filesystem, _ state: inout State) -> UnseenProcesses? {
        if let blind = state.look.blind { return UnseenProcesses(processes: [], cause: blind) }
        guard !state.look.unseen.isEmpty else { return nil }
        let numbers: Set<DeviceNumber>
        if let known = state.filesystemNumbers[filesystem.uuid] {
            numbers = known
        } else {
            numbers = filesystemNumbers(filesystem)
            state.filesystemNumbers[filesystem.uuid] = numbers
        }
        let pids = state.look.unseen.compactMap { pid, shown -> Int32? in
            // A namespace that shows none of the filesystem's mounts cannot reach it.
            guard let shown, !numbers.isEmpty else { return pid }
            return shown.isDisjoint(with: numbers) ? nil : pid
        }
        guard !pids.isEmpty else { return nil }
        return UnseenProcesses(processes: pids.sorted().map { command(of: $0, &state) }, cause: state.look.unseenCause)
    }

    /// The device numbers carve's own mount table gives the filesystem's mounts (btrfs
    /// shows one number for every mount of a filesystem, whichever subvolume).
    private func filesystemNumbers(_ filesystem: Filesystem) -> Set<DeviceNumber> {
        guard let text = Files.text(host.mountInfo), let entries = try? MountInfo.parse(text) else { return [] }
        let mountpoints = Set(filesystem.mounts.map(\.mountpoint))
        return Set(entries.filter { mountpoints.contains($0.mountpoint) }.map(\.number))
    }

    private func command(of pid: Int32, _ state: inout State) -> VolumeHolder {
        if let command = state.commands[pid] { return VolumeHolder(pid: pid, command: command) }
        let command = ProcessScan(host: host).command(of: pid)
        state.commands[pid] = command
        return VolumeHolder(pid: pid, command: command)
    }

    private static func device(of path: String) -> UInt64? {
        var info = stat()
        guard ByteText.withCString(path, { stat($0, &info) }) == 0 else { return nil }
        return UInt64(info.st_dev)
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
