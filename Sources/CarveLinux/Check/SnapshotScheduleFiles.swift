import CarveCore

/// Reads the snapshot schedules from files under the host root: which timers are
/// enabled (`timers.target.wants` links in /etc and /run, masks in /etc and /run),
/// snapper's configs, btrbk.conf, timeshift's cron files and timeshift.json, carve's
/// prune policies. No D-Bus: whether a timer runs right now is not in a file.
public struct SnapshotScheduleFiles: SnapshotScheduleReader {
    public var host: HostRoot
    public init(host: HostRoot = .system) { self.host = host }

    static let unitDirectories = ["/etc/systemd/system", "/run/systemd/system"]
    static let watched = ["snapper-timeline.timer", "btrbk.timer"]

    public func schedules() -> SnapshotSchedules {
        let enabled = enabledTimers()
        var schedules = SnapshotSchedules(enabledTimers: enabled)
        if enabled.contains("snapper-timeline.timer") { schedules.snapperTimelines = snapperTimelines() }
        if enabled.contains("btrbk.timer") { schedules.btrbkVolumes = btrbkVolumes() }
        schedules.timeshiftCronFiles = (Files.names(in: host.path("/etc/cron.d")) ?? [])
            .filter { $0.hasPrefix("timeshift-") }.sorted().map { "/etc/cron.d/" + $0 }
        if !schedules.timeshiftCronFiles.isEmpty {
            schedules.timeshiftDeviceUUID = Files.text(host.path("/etc/timeshift/timeshift.json"))
                .flatMap { Self.jsonString("backup_device_uuid", in: $0) }
        }
        schedules.prunePolicies = enabled.compactMap(prunePolicy)
        schedules.unknowns = [
            "carve reads which timers are enabled, not whether one was started or stopped by hand since boot: "
                + "`systemctl list-timers` tells"
        ]
        return schedules
    }

    /// Timer units linked into timers.target.wants, less those masked (linked to /dev/null).
    func enabledTimers() -> [String] {
        var names: Set<String> = []
        for directory in Self.unitDirectories {
            for name in Files.names(in: host.path(directory + "/timers.target.wants")) ?? []
            where name.hasSuffix(".timer") && (Self.watched.contains(name) || name.hasPrefix("carve-prune@")) {
                names.insert(name)
            }
        }
        return names.filter { name in
            !Self.unitDirectories.contains { Files.linkTarget(host.path($0 + "/" + name)) == "/dev/null" }
        }.sorted()
    }

    func snapperTimelines() -> [SnapperTimeline] {
        (Files.names(in: host.snapperConfigs) ?? []).sorted().compactMap { name in
            guard let text = Files.text(host.snapperConfigs + "/" + name),
                let config = try? SnapperConfig.parse(name: name, text: text),
                text.split(separator: "\n").contains(where: { String($0).trimmingSpaces == "TIMELINE_CREATE=\"yes\"" })
            else { return nil }
            return SnapperTimeline(name: config.name, subvolume: config.subvolume)
        }
    }

    /// `volume PATH` lines of btrbk.conf (where btrbk looks for it first).
    func btrbkVolumes() -> [String]? {
        guard
            let text = ["/etc/btrbk/btrbk.conf", "/etc/btrbk.conf"].lazy.compactMap({ Files.text(host.path($0)) }).first
        else { return nil }
        return text.split(separator: "\n").compactMap { line in
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            return words.count >= 2 && words[0] == "volume" ? String(words[1]) : nil
        }
    }

    /// The `--filesystem` paths of carve-prune@NAME's policy, /etc/carve/prune/NAME.conf.
    func prunePolicy(_ unit: String) -> PrunePolicy? {
        guard unit.hasPrefix("carve-prune@") else { return nil }
        let instance = String(unit.dropFirst("carve-prune@".count).dropLast(".timer".count))
        let text = Files.text(host.path("/etc/carve/prune/\(instance).conf"))
        return PrunePolicy(
            instance: instance,
            filesystems: text.map { text in
                text.split(separator: "\n").compactMap { line -> String? in
                    let line = String(line).trimmingSpaces
                    if line.hasPrefix("--filesystem=") { return String(line.dropFirst("--filesystem=".count)) }
                    guard line.hasPrefix("--filesystem ") else { return nil }
                    return String(line.dropFirst("--filesystem ".count)).trimmingSpaces
                }
            })
    }

    /// The string value of `"key": "value"` in timeshift.json, which has one key a line.
    static func jsonString(_ key: String, in text: String) -> String? {
        for line in text.split(separator: "\n") where line.containsText("\"\(key)\"") {
            let value = line.split(separator: ":", maxSplits: 1).last.map { String($0).trimmingSpaces } ?? ""
            let unquoted = value.split(separator: "\"", omittingEmptySubsequences: false)
            return unquoted.count >= 3 && !unquoted[1].isEmpty ? String(unquoted[1]) : nil
        }
        return nil
    }
}
