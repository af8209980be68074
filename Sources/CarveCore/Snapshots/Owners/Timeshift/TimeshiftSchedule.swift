/// timeshift's runs: its files in /etc/cron.d, writing to the device timeshift.json names.
public struct TimeshiftSchedule: OwnerSchedule {
    /// timeshift's cron files (`/etc/cron.d/timeshift-hourly`, ...).
    public var cronFiles: [String]
    /// timeshift.json's `backup_device_uuid`: the filesystem timeshift writes snapshots
    /// to; nil when it could not be read.
    public var deviceUUID: String?
    public init(cronFiles: [String], deviceUUID: String?) { self.cronFiles = cronFiles; self.deviceUUID = deviceUUID }

    public func timers(touching filesystem: ScheduledFilesystem, enabled: Set<String>) -> [SnapshotTimer] {
        cronFiles.compactMap { file in
            guard let deviceUUID else {
                return .cron(
                    file, "runs timeshift; carve could not read timeshift.json to tell which device it writes to")
            }
            return deviceUUID == filesystem.uuid
                ? .cron(file, "timeshift writes its snapshots to this filesystem") : nil
        }
    }
}
