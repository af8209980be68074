/// A snapper config whose timeline is on.
public struct SnapperTimeline: Sendable, Hashable {
    public var name: String
    public var subvolume: String
    public init(name: String, subvolume: String) { self.name = name; self.subvolume = subvolume }
}

/// snapper's hourly timeline snapshots: `snapper-timeline.timer`, for each config whose
/// `TIMELINE_CREATE` is on.
public struct SnapperSchedule: OwnerSchedule {
    public static let timer = "snapper-timeline.timer"
    /// The configs whose timeline is on.
    public var timelines: [SnapperTimeline]
    public init(timelines: [SnapperTimeline]) { self.timelines = timelines }

    public func timers(touching filesystem: ScheduledFilesystem, enabled: Set<String>) -> [SnapshotTimer] {
        let here = timelines.filter { filesystem.holds($0.subvolume) }
        guard enabled.contains(Self.timer), !here.isEmpty else { return [] }
        let configs = here.map { "\($0.subvolume) (config \($0.name))" }.joined(separator: ", ")
        return [.systemd(Self.timer, "takes snapper's hourly timeline snapshots of \(configs)")]
    }
}
