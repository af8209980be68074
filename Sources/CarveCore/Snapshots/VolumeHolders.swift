/// A running process that holds something inside a volume: an open file, its working
/// or root directory, a memory-mapped file.
public struct VolumeHolder: Sendable, Hashable, CustomStringConvertible {
    public var pid: Int32
    /// Its command name (`/proc/PID/comm`).
    public var command: String
    public init(pid: Int32, command: String) { self.pid = pid; self.command = command }
    /// `4242 (restic)`.
    public var description: String { "\(pid) (\(command))" }
}

/// Processes whose holdings carve could not read, and why. What they hold is unknown,
/// so every snapshot they might hold is kept (fail closed).
public struct UnseenProcesses: Sendable, Hashable {
    /// The processes, oldest first by pid; empty when carve cannot even list them (no
    /// /proc, `hidepid`, a PID namespace of its own).
    public var processes: [VolumeHolder]
    /// Why, in a few words: "no CAP_SYS_PTRACE", "/proc is mounted with hidepid=invisible".
    public var cause: String

    public init(processes: [VolumeHolder], cause: String) { self.processes = processes; self.cause = cause }

    /// For one kept snapshot: "one of 3 processes carve cannot see (no CAP_SYS_PTRACE)".
    public var phrase: String {
        switch processes.count {
        case 0: "processes carve cannot see (\(cause))"
        case 1: "process \(processes[0].pid), which carve cannot see into (\(cause))"
        default: "one of \(processes.count) processes carve cannot see into (\(cause))"
        }
    }

    /// Said once a run, naming the processes (the first ten).
    public var note: String {
        let who: String
        if processes.isEmpty {
            who = "cannot see which processes hold snapshots (\(cause))"
        } else {
            let named = processes.prefix(10).map(\.description).joined(separator: ", ")
            let more = processes.count > 10 ? " and \(processes.count - 10) more" : ""
            let count = processes.count == 1 ? "1 process holds" : "\(processes.count) processes hold"
            who = "cannot see what \(count) (PID\(processes.count == 1 ? "" : "s") \(named)\(more): \(cause))"
        }
        return "\(who): nothing deleted that they might hold; run as full root, or --ignore-in-use"
    }
}

/// One look at who holds a volume: the processes seen holding it, and those carve could
/// not look into that might.
public struct VolumeHolding: Sendable, Hashable {
    public var holders: [VolumeHolder]
    /// nil when carve saw every process that could hold the volume.
    public var unseen: UnseenProcesses?
    public init(holders: [VolumeHolder] = [], unseen: UnseenProcesses? = nil) {
        self.holders = holders; self.unseen = unseen
    }
}

/// Tells which running processes hold a volume. A backup reading a snapshot for an
/// hour ("snapshot, back up from it, delete it") must not see it vanish underneath;
/// btrfs deletes a snapshot with open files in it without a word.
public protocol VolumeHolders: Sendable {
    /// The processes holding something inside `volume`, oldest first by pid, and those
    /// that might but could not be looked into; both empty when none does or no mount
    /// reaches it. `recheck`: right before the volume's deletion, so an answer from an
    /// older look is refreshed.
    func holders(of volume: Volume, on filesystem: Filesystem, recheck: Bool) -> VolumeHolding
    /// Starts the first look now, beside whatever the caller does next (listing the
    /// snapshots), so the plan's first question finds it done or under way.
    func prefetch()
    /// Starts looking up which device each of `paths` (absolute, as the user named
    /// snapshots) is on, beside the listing, so the plan's question for a named snapshot
    /// finds its answer ready.
    func prefetch(devicesOf paths: [String])
    /// Forgets the last look, so the next question reads afresh: a prompt may have
    /// waited for minutes since the plan was made.
    func refresh()
}

extension VolumeHolders {
    public func prefetch() {}
    public func prefetch(devicesOf paths: [String]) {}
    public func refresh() {}
}
