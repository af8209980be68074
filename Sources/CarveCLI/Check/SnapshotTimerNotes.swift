import CarveCore

extension Services {
    /// One note per timer or cron job that would snapshot `filesystem` again, with the
    /// commands that pause and resume it: for a person about to free space on it.
    func snapshotTimerNotes(for filesystem: Filesystem) -> [String] {
        guard let reader = snapshotSchedules, let mounts = try? mounts.mounts() else { return [] }
        let found = SnapshotTimerPlanner.timers(
            for: filesystem.mounts.map(\.mountpoint), uuid: filesystem.uuid, mounts: mounts, in: reader.schedules())
        return found.timers.map {
            "\($0.name) \($0.detail) again: pause it with `\($0.pause)`, resume it with `\($0.resume)`"
        }
    }
}
