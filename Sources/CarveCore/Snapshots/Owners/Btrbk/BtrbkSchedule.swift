/// btrbk's runs: `btrbk.timer`, snapshotting the `volume`s of btrbk.conf.
public struct BtrbkSchedule: OwnerSchedule {
    public static let timer = "btrbk.timer"
    /// btrbk.conf's `volume` paths; nil when no btrbk.conf could be read.
    public var volumes: [String]?
    public init(volumes: [String]?) { self.volumes = volumes }

    public func timers(touching filesystem: ScheduledFilesystem, enabled: Set<String>) -> [SnapshotTimer] {
        guard enabled.contains(Self.timer) else { return [] }
        guard let volumes else {
            return [
                .systemd(Self.timer, "runs btrbk; carve could not read btrbk.conf to tell which volumes it snapshots")
            ]
        }
        let here = volumes.filter(filesystem.holds)
        return here.isEmpty ? [] : [.systemd(Self.timer, "snapshots the btrbk volume \(here.joined(separator: ", "))")]
    }
}
