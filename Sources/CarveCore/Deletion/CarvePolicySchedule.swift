/// carve's own timers: `carve-prune@NAME.timer` and `carve-thin@NAME.timer`, each run by
/// the policy /etc/carve/prune/NAME.conf or /etc/carve/thin/NAME.conf, which delete
/// snapshots of the filesystems the policy names.
public struct CarvePolicySchedule: OwnerSchedule {
    /// One enabled timer and the `--filesystem` paths of its policy.
    public struct Policy: Sendable, Hashable {
        /// `prune` or `thin`: the unit `carve-KIND@NAME.timer`, the policy /etc/carve/KIND/NAME.conf.
        public var kind: String
        public var instance: String
        /// nil when the policy could not be read.
        public var filesystems: [String]?
        public init(kind: String, instance: String, filesystems: [String]?) {
            self.kind = kind; self.instance = instance; self.filesystems = filesystems
        }
        public var timer: String { "carve-\(kind)@\(instance).timer" }
        public var file: String { "/etc/carve/\(kind)/\(instance).conf" }
    }

    /// The kinds of carve's timers, as their unit names start (`carve-prune@`).
    public static let kinds = ["prune", "thin"]
    public var policies: [Policy]
    public init(policies: [Policy]) { self.policies = policies }

    public func timers(touching filesystem: ScheduledFilesystem, enabled: Set<String>) -> [SnapshotTimer] {
        policies.compactMap { policy in
            guard let filesystems = policy.filesystems else {
                return .systemd(policy.timer, "\(policy.kind)s snapshots; carve could not read \(policy.file)")
            }
            guard filesystems.contains(where: filesystem.holds) else { return nil }
            return .systemd(policy.timer, "deletes snapshots of this filesystem (it writes while the space is checked)")
        }
    }

    /// The `--filesystem` paths of a policy's text (one option a line, as `--options-file`
    /// reads it); nil when it is not a valid options file.
    public static func filesystems(inPolicy text: String, file: String) -> [String]? {
        guard let lines = try? OptionsText.lines(text, file: file) else { return nil }
        return lines.compactMap { line in
            let words = line.words
            if words.count == 1, words[0].hasPrefix("--filesystem=") { return String(words[0].dropFirst(13)) }
            return words.count == 2 && words[0] == "--filesystem" ? words[1] : nil
        }
    }
}
