/// What carve read of the machine's snapshot schedules, from unit-file state and
/// configuration files (no D-Bus, so a fixture tree stands for a host).
public struct SnapshotSchedules: Sendable {
    /// Timer units enabled (a `timers.target.wants` link in /etc or /run) and not masked.
    public var enabledTimers: [String]
    /// Each owner's schedule, in the order their timers are named.
    public var owners: [any OwnerSchedule]
    /// What carve could not tell, said as such.
    public var unknowns: [String]

    public init(enabledTimers: [String] = [], owners: [any OwnerSchedule] = [], unknowns: [String] = []) {
        self.enabledTimers = enabledTimers; self.owners = owners; self.unknowns = unknowns
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
        let filesystem = ScheduledFilesystem(mountpoints: mountpoints, uuid: uuid, mounts: mounts)
        let enabled = Set(schedules.enabledTimers)
        return (schedules.owners.flatMap { $0.timers(touching: filesystem, enabled: enabled) }, schedules.unknowns)
    }
}
