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

/// Tells which running processes hold a volume. A backup reading a snapshot for an
/// hour ("snapshot, back up from it, delete it") must not see it vanish underneath;
/// btrfs deletes a snapshot with open files in it without a word.
public protocol VolumeHolders: Sendable {
    /// The processes holding something inside `volume`, oldest first by pid; empty when
    /// none does or no mount reaches it. `recheck`: right before the volume's deletion,
    /// so an answer from an older look is refreshed.
    func holders(of volume: Volume, on filesystem: Filesystem, recheck: Bool) -> [VolumeHolder]
    /// Starts the first look now, beside whatever the caller does next (listing the
    /// snapshots), so the plan's first question finds it done or under way.
    func prefetch()
    /// Starts looking up which device each of `paths` (absolute, as the user named
    /// snapshots) is on, beside the listing, so the plan's question for a named snapshot
    /// finds its answer ready.
    func prefetch(devicesOf paths: [String])
}

extension VolumeHolders {
    public func prefetch() {}
    public func prefetch(devicesOf paths: [String]) {}
}
