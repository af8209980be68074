/// A scheduled job that would take (or prune) snapshots of the filesystem while it is
/// being cleaned up and repartitioned: a new snapshot there pins blocks again, as Time
/// Machine did until `tmutil disable`.
public struct SnapshotTimer: Sendable, Hashable {
    /// The unit (`snapper-timeline.timer`) or cron file (`/etc/cron.d/timeshift-hourly`).
    public var name: String
    /// What it does to this filesystem.
    public var detail: String
    public var pause: String
    public var resume: String
    public init(name: String, detail: String, pause: String, resume: String) {
        self.name = name; self.detail = detail; self.pause = pause; self.resume = resume
    }

    /// A systemd timer: stopped and started again with systemctl.
    public static func systemd(_ unit: String, _ detail: String) -> SnapshotTimer {
        let quoted = shellQuoted(unit)
        return SnapshotTimer(
            name: unit, detail: detail, pause: "systemctl stop \(quoted)", resume: "systemctl start \(quoted)")
    }

    /// A file in /etc/cron.d: cron skips files whose names start with a dot (Debian's cron
    /// also those holding one, cronie those starting with one), so renaming pauses it.
    public static func cron(_ file: String, _ detail: String) -> SnapshotTimer {
        let slash = file.lastIndex(of: "/").map { file.index(after: $0) } ?? file.startIndex
        let paused = String(file[..<slash]) + "." + String(file[slash...]) + ".paused"
        let (from, to) = (shellQuoted(file), shellQuoted(paused))
        return SnapshotTimer(name: file, detail: detail, pause: "mv \(from) \(to)", resume: "mv \(to) \(from)")
    }
}

/// The filesystem whose timers are asked for: where it is mounted, its UUID, and every
/// mount of the machine, to tell which filesystem a configured path lies on.
public struct ScheduledFilesystem: Sendable {
    public var mountpoints: [String]
    public var uuid: String?
    public var mounts: [MountEntry]
    public init(mountpoints: [String], uuid: String?, mounts: [MountEntry]) {
        self.mountpoints = mountpoints; self.uuid = uuid; self.mounts = mounts
    }

    /// True when `path` lies on this filesystem: the mount whose subtree holds it (the
    /// longest prefix) is one of its mountpoints.
    public func holds(_ path: String) -> Bool {
        let owner = mounts.map(\.mountpoint).filter { mountpoint in
            path == mountpoint || mountpoint == "/" || path.hasPrefix(mountpoint + "/")
        }.max { $0.count < $1.count }
        return owner.map(mountpoints.contains) ?? false
    }
}

/// What one owner schedules, as read from the machine (its units, cron files and
/// configuration), and which of its jobs touch a filesystem. Each owner declares its
/// own beside its room (`Owners/NAME/`); the Linux side reads it from files.
public protocol OwnerSchedule: Sendable {
    /// The jobs that would snapshot or prune `filesystem`; `enabled`: the timer units
    /// enabled on the machine.
    func timers(touching filesystem: ScheduledFilesystem, enabled: Set<String>) -> [SnapshotTimer]
}
