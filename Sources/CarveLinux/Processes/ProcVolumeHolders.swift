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
/// Reading /proc costs milliseconds (every process, every descriptor), so it is read
/// once when the plan first asks, and again right before a deletion only when the last
/// read is older than `recheckAfter` seconds: a deletion run of a thousand snapshots
/// reads it once or twice, and a process that starts holding a snapshot less than
/// `recheckAfter` before its deletion may be missed (btrfs itself refuses to delete a
/// snapshot that `btrfs send` is reading).
public final class ProcVolumeHolders: VolumeHolders {
    let host: HostRoot
    let recheckAfter: Double
    private struct State {
        var readAt: Double?
        var byDevice: [UInt64: [Int32]] = [:]
        /// The device of each volume's mounted path, once looked up.
        var devices: [String: UInt64?] = [:]
        var commands: [Int32: String] = [:]
        /// The first look, started by `prefetch` and not yet taken.
        var pending: Background<[UInt64: [Int32]]>?
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
            state.pending = Background { ProcessScan(host: host).heldDevices() }
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

    public func holders(of volume: Volume, on filesystem: Filesystem, recheck: Bool) -> [VolumeHolder] {
        guard let path = volume.mountedPath else { return [] }
        return state.withLock { state in
            if let pending = state.pending {
                state.byDevice = pending.value
                state.pending = nil
            }
            if let pending = state.pendingDevices {
                state.devices.merge(pending.value) { known, _ in known }
                state.pendingDevices = nil
            }
            if state.readAt == nil || (recheck && Self.now() - state.readAt! > recheckAfter) {
                state.byDevice = ProcessScan(host: host).heldDevices()
                state.readAt = Self.now()
                state.commands = [:]
            }
            let device: UInt64?
            if let known = state.devices[path] {
                device = known
            } else {
                device = Self.device(of: path)
                state.devices[path] = device
            }
            guard let device, let pids = state.byDevice[device] else { return [] }
            return pids.map { pid in
                if let command = state.commands[pid] { return VolumeHolder(pid: pid, command: command) }
                let command = ProcessScan(host: host).command(of: pid)
                state.commands[pid] = command
                return VolumeHolder(pid: pid, command: command)
            }
        }
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
