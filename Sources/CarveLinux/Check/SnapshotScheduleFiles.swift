import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// How one owner's schedule is read from the machine's files: which timer units are its
/// own, and its configuration. Each owner's lives beside its room
/// (`CarveLinux/Snapshots/Owners/NAME/`); `SnapshotScheduleFiles.owners` lists them.
protocol OwnerScheduleFiles: Sendable {
    /// True for a timer unit of this owner's, whose enabled state is read.
    func watches(_ timer: String) -> Bool
    /// The owner's schedule from its files under `host`, given the enabled timers; nil
    /// when nothing of it is scheduled.
    func schedule(host: HostRoot, enabled: [String]) -> (any OwnerSchedule)?
}

/// Reads the snapshot schedules from files under the host root: which timers are
/// enabled (`timers.target.wants` links in /etc and /run, masks in /etc and /run), then
/// each owner's own files. No D-Bus: whether a timer runs right now is not in a file.
public struct SnapshotScheduleFiles: SnapshotScheduleReader {
    public var host: HostRoot
    public init(host: HostRoot = .system) { self.host = host }

    static let unitDirectories = ["/etc/systemd/system", "/run/systemd/system"]
    /// Every owner that schedules snapshots, in the order their timers are named.
    static let owners: [any OwnerScheduleFiles] = [
        SnapperScheduleFiles(), BtrbkScheduleFiles(), TimeshiftScheduleFiles(), CarvePolicyFiles(),
    ]

    public func schedules() -> SnapshotSchedules {
        let enabled = enabledTimers()
        return SnapshotSchedules(
            enabledTimers: enabled, owners: Self.owners.compactMap { $0.schedule(host: host, enabled: enabled) },
            unknowns: [
                "carve reads which timers are enabled, not whether one was started or stopped by hand since boot: "
                    + "`systemctl list-timers` tells"
            ])
    }

    /// The owners' timer units linked into timers.target.wants, less those masked
    /// (linked to /dev/null).
    func enabledTimers() -> [String] {
        var names: Set<String> = []
        for directory in Self.unitDirectories {
            for name in Files.names(in: host.path(directory + "/timers.target.wants")) ?? []
            where name.hasSuffix(".timer") && Self.owners.contains(where: { $0.watches(name) }) {
                names.insert(name)
            }
        }
        return names.filter { name in
            !Self.unitDirectories.contains { Files.linkTarget(host.path($0 + "/" + name)) == "/dev/null" }
        }.sorted()
    }
}

/// carve's own policies: `/etc/carve/KIND/NAME.conf` of each enabled `carve-KIND@NAME.timer`,
/// read as carve itself reads them (as root, only from a path root alone can change).
struct CarvePolicyFiles: OwnerScheduleFiles {
    func watches(_ timer: String) -> Bool { CarvePolicySchedule.kinds.contains { timer.hasPrefix("carve-\($0)@") } }

    func schedule(host: HostRoot, enabled: [String]) -> (any OwnerSchedule)? {
        let policies = enabled.compactMap { timer -> CarvePolicySchedule.Policy? in
            guard let kind = CarvePolicySchedule.kinds.first(where: { timer.hasPrefix("carve-\($0)@") }) else {
                return nil
            }
            let instance = String(timer.dropFirst("carve-\(kind)@".count).dropLast(".timer".count))
            var policy = CarvePolicySchedule.Policy(kind: kind, instance: instance, filesystems: nil)
            let path = host.path(policy.file)
            let bytes = geteuid() == 0 ? try? RootPolicyFile.read(path, limit: 64 << 10) : Files.contents(path)
            policy.filesystems = bytes.flatMap { $0 }.flatMap {
                CarvePolicySchedule.filesystems(inPolicy: ByteText.decode($0), file: policy.file)
            }
            return policy
        }
        return policies.isEmpty ? nil : CarvePolicySchedule(policies: policies)
    }
}
