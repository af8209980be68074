import CarveCore

/// snapper's schedule: `snapper-timeline.timer`, and the configs whose timeline is on.
struct SnapperScheduleFiles: OwnerScheduleFiles {
    func watches(_ timer: String) -> Bool { timer == SnapperSchedule.timer }

    func schedule(host: HostRoot, enabled: [String]) -> (any OwnerSchedule)? {
        guard enabled.contains(SnapperSchedule.timer) else { return nil }
        let timelines = (Files.names(in: host.snapperConfigs) ?? []).sorted().compactMap { name -> SnapperTimeline? in
            guard let text = Files.text(host.snapperConfigs + "/" + name),
                let config = try? SnapperConfig.parse(name: name, text: text),
                text.split(separator: "\n").contains(where: { String($0).trimmingSpaces == "TIMELINE_CREATE=\"yes\"" })
            else { return nil }
            return SnapperTimeline(name: config.name, subvolume: config.subvolume)
        }
        return SnapperSchedule(timelines: timelines)
    }
}
