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
}

/// A snapper config whose timeline is on.
public struct SnapperTimeline: Sendable, Hashable {
    public var name: String
    public var subvolume: String
    public init(name: String, subvolume: String) { self.name = name; self.subvolume = subvolume }
}

/// A carve-prune@NAME.timer instance and the `--filesystem` paths of its policy (nil
/// when the policy could not be read).
public struct PrunePolicy: Sendable, Hashable {
    public var instance: String
    public var filesystems: [String]?
    public init(instance: String, filesystems: [String]?) { self.instance = instance; self.filesystems = filesystems }
}

/// What carve read of the machine's snapshot schedules, from unit-file state and
/// configuration files (no D-Bus, so a fixture tree stands for a host).
public struct SnapshotSchedules: Sendable, Hashable {
    /// Timer units enabled (a `timers.target.wants` link in /etc or /run) and not masked.
    public var enabledTimers: [String]
    /// snapper configs whose timeline is on (TIMELINE_CREATE="yes"): name and subvolume.
    public var snapperTimelines: [SnapperTimeline]
    /// btrbk's `volume` paths; nil when no btrbk.conf could be read.
    public var btrbkVolumes: [String]?
    /// timeshift's cron files (`/etc/cron.d/timeshift-hourly`, ...).
    public var timeshiftCronFiles: [String]
    /// timeshift.json's `backup_device_uuid`: the filesystem timeshift writes snapshots to.
    public var timeshiftDeviceUUID: String?
    /// carve-prune@NAME.timer instances: NAME and the `--filesystem` paths of its
    /// policy, nil when the policy could not be read.
    public var prunePolicies: [PrunePolicy]
    /// What carve could not tell, said as such.
    public var unknowns: [String]

    public init(
        enabledTimers: [String] = [], snapperTimelines: [SnapperTimeline] = [],
        btrbkVolumes: [String]? = nil, timeshiftCronFiles: [String] = [], timeshiftDeviceUUID: String? = nil,
        prunePolicies: [PrunePolicy] = [], unknowns: [String] = []
    ) {
        self.enabledTimers = enabledTimers; self.snapperTimelines = snapperTimelines; self.btrbkVolumes = btrbkVolumes
        self.timeshiftCronFiles = timeshiftCronFiles; self.timeshiftDeviceUUID = timeshiftDeviceUUID
        self.prunePolicies = prunePolicies; self.unknowns = unknowns
    }
}

/// Reads the snapshot schedules of the machine; tests hand in a fixture tree or a fake.
public protocol SnapshotScheduleReader: Sendable {
    func schedules() -> SnapshotSchedules
}

/// Which schedules touch one filesystem, with the commands that pause and resume them.
public enum SnapshotTimerPlanner {
    /// The timers that would snapshot the filesystem mounted at `mountpoints` (UUID
    /// `uuid`), given every mount of the machine; and what carve could not tell.
    public static func timers(
        for mountpoints: [String], uuid: String?, mounts: [MountEntry], in schedules: SnapshotSchedules
    ) -> (timers: [SnapshotTimer], notes: [String]) {
        var timers: [SnapshotTimer] = [], notes: [String] = []
        let enabled = Set(schedules.enabledTimers)
        func onThis(_ path: String) -> Bool { owningMount(of: path, among: mounts).map(mountpoints.contains) ?? false }

        let timelines = schedules.snapperTimelines.filter { onThis($0.subvolume) }
        if enabled.contains("snapper-timeline.timer"), !timelines.isEmpty {
            let configs = timelines.map { "\($0.subvolume) (config \($0.name))" }.joined(separator: ", ")
            timers.append(systemd("snapper-timeline.timer", "takes snapper's hourly timeline snapshots of \(configs)"))
        }
        if enabled.contains("btrbk.timer") {
            if let volumes = schedules.btrbkVolumes {
                let here = volumes.filter(onThis)
                if !here.isEmpty {
                    timers.append(
                        systemd("btrbk.timer", "snapshots the btrbk volume \(here.joined(separator: ", "))"))
                }
            } else {
                timers.append(
                    systemd(
                        "btrbk.timer", "runs btrbk; carve could not read btrbk.conf to tell which volumes it snapshots")
                )
            }
        }
        for file in schedules.timeshiftCronFiles {
            guard let deviceUUID = schedules.timeshiftDeviceUUID else {
                timers.append(
                    cron(file, "runs timeshift; carve could not read timeshift.json to tell which device it writes to"))
                continue
            }
            if deviceUUID == uuid { timers.append(cron(file, "timeshift writes its snapshots to this filesystem")) }
        }
        for policy in schedules.prunePolicies {
            let unit = "carve-prune@\(policy.instance).timer"
            guard let filesystems = policy.filesystems else {
                timers.append(
                    systemd(unit, "prunes snapshots; carve could not read /etc/carve/prune/\(policy.instance).conf"))
                continue
            }
            if filesystems.contains(where: onThis) {
                timers.append(
                    systemd(unit, "deletes snapshots of this filesystem (it writes while the space is checked)"))
            }
        }
        notes += schedules.unknowns
        return (timers, notes)
    }

    /// The mountpoint whose subtree holds `path` (the longest prefix).
    static func owningMount(of path: String, among mounts: [MountEntry]) -> String? {
        mounts.map(\.mountpoint).filter { mountpoint in
            path == mountpoint || mountpoint == "/" || path.hasPrefix(mountpoint + "/")
        }.max { $0.count < $1.count }
    }

    static func systemd(_ unit: String, _ detail: String) -> SnapshotTimer {
        let quoted = CheckPlanner.shellQuoted(unit)
        return SnapshotTimer(
            name: unit, detail: detail, pause: "systemctl stop \(quoted)", resume: "systemctl start \(quoted)")
    }

    /// cron skips files in /etc/cron.d whose names start with a dot (Debian's cron also
    /// those holding one, cronie those starting with one): renaming pauses the job.
    static func cron(_ file: String, _ detail: String) -> SnapshotTimer {
        let slash = file.lastIndex(of: "/").map { file.index(after: $0) } ?? file.startIndex
        let paused = String(file[..<slash]) + "." + String(file[slash...]) + ".paused"
        let (from, to) = (CheckPlanner.shellQuoted(file), CheckPlanner.shellQuoted(paused))
        return SnapshotTimer(name: file, detail: detail, pause: "mv \(from) \(to)", resume: "mv \(to) \(from)")
    }
}
