import CarveCore

/// timeshift's schedule: its files in /etc/cron.d, and the device timeshift.json names.
struct TimeshiftScheduleFiles: OwnerScheduleFiles {
    func watches(_ timer: String) -> Bool { false }

    func schedule(host: HostRoot, enabled: [String]) -> (any OwnerSchedule)? {
        let files = (Files.names(in: host.path("/etc/cron.d")) ?? []).filter { $0.hasPrefix("timeshift-") }.sorted()
        guard !files.isEmpty else { return nil }
        let settings = Files.contents(host.path("/etc/timeshift/timeshift.json")).flatMap {
            try? JSONDocument.parse($0)
        }
        let uuid = settings?["backup_device_uuid"]?.string
        return TimeshiftSchedule(
            cronFiles: files.map { "/etc/cron.d/" + $0 }, deviceUUID: uuid?.isEmpty == false ? uuid : nil)
    }
}
