import CarveCore

/// Where a command writes: stdout for the result only, stderr for everything else.
public protocol OutputSink: Sendable {
    func write(_ text: String)
    func writeError(_ text: String)
    /// stderr text that `--quiet` keeps: errors, a prompt, an interruption.
    func writeEssential(_ text: String)
    /// Writes UTF-8 bytes to stdout (a long listing's chunks, which need not become a String).
    func write(bytes: UnsafeRawBufferPointer)
}

/// Everything a command needs from the outside world. `main` hands in the real
/// system; CLI tests hand in fakes through `Services.$current.withValue`. What
/// nobody hands in is `NoMachine`'s: a test never reaches this machine by omission.
public struct Services: Sendable {
    public var devices: any DeviceSource
    /// Every snapshot backend, one per filesystem kind; a call about a filesystem goes to its own.
    public var backends: SnapshotBackendRegistry
    /// The backends as one: what planners and commands list and delete through.
    public var snapshots: any SnapshotBackend { backends }
    public var clock: any WallClock
    public var output: any OutputSink
    /// True when running as root (effective uid 0).
    public var isRoot: Bool
    /// True when stdin is a terminal, so a destructive command may ask.
    public var stdinIsTerminal: Bool
    /// True when stderr is a terminal, so progress bars may be drawn.
    public var stderrIsTerminal: Bool
    /// Partition tables (libfdisk, read-only), for `check`.
    public var partitionTables: any PartitionTableReader
    /// Filesystem sizes and minima, for `check`.
    public var filesystemSizer: any FilesystemSizer
    /// The mount table, for `check`.
    public var mounts: any MountTable
    /// The space of mounted filesystems (statvfs), for the FS* columns of `devices`.
    public var filesystemSpace: any FilesystemSpaceSource
    /// The timers and cron jobs that take snapshots, for `check` and an interactive `thin`; nil reads none.
    public var snapshotSchedules: (any SnapshotScheduleReader)?
    /// Whether the locale's charset is UTF-8: trees are drawn with box-drawing
    /// characters then, with ASCII otherwise (LANG=C, POSIX, cron's default), as lsblk.
    public var localeIsUTF8 = true
    /// Which running processes hold a snapshot; nil: none is looked for.
    public var holders: (any VolumeHolders)?
    /// ZFS pools' layouts, for `check` on a `zfs_member` device; nil reads none.
    public var zfsPools: (any ZFSPoolReading)?
    /// Whether exact scans use the cache and report their figures (`--no-cache`, `--verbose`).
    public var exactScan = ExactScanOptions()
    /// What snapshot owners keep beside their snapshots (markers, metadata), and what
    /// they read on the host to classify every backend's listing; a fake backend that
    /// keeps them too is its own.
    public var owners: any OwnerHousekeeping { didSet { backends.owners = owners } }

    public init(
        devices: any DeviceSource, snapshots: any SnapshotBackend, clock: any WallClock = NoMachine(),
        output: any OutputSink, isRoot: Bool, stdinIsTerminal: Bool = false, stderrIsTerminal: Bool = false,
        partitionTables: any PartitionTableReader = NoMachine(),
        filesystemSizer: any FilesystemSizer = NoMachine(), mounts: any MountTable = NoMachine(),
        filesystemSpace: any FilesystemSpaceSource = NoMachine(),
        snapshotSchedules: (any SnapshotScheduleReader)? = nil
    ) {
        self.filesystemSpace = filesystemSpace; self.snapshotSchedules = snapshotSchedules
        self.partitionTables = partitionTables; self.filesystemSizer = filesystemSizer; self.mounts = mounts
        owners = (snapshots as? any OwnerHousekeeping) ?? NoOwnerHousekeeping()
        self.devices = devices; backends = SnapshotBackendRegistry(snapshots, for: .btrfs); self.clock = clock;
        backends.owners = owners
        self.output = output
        self.isRoot = isRoot; self.stdinIsTerminal = stdinIsTerminal; self.stderrIsTerminal = stderrIsTerminal
    }

    /// The services of the running command: nothing of this machine unless the caller
    /// chose it (`main` runs carve under `Services.system()`).
    @TaskLocal public static var current: Services = .noMachine

    /// Services on `NoMachine`: no devices, no snapshots, nothing written.
    public static var noMachine: Services {
        Services(devices: NoMachine(), snapshots: NoMachine(), output: NoMachine(), isRoot: false)
    }
}

extension OutputSink {
    public func writeEssential(_ text: String) { writeError(text) }
    public func write(bytes: UnsafeRawBufferPointer) { write(String(decoding: bytes, as: UTF8.self)) }

    /// Writes a line to stdout.
    public func line(_ text: String) { write(text + "\n") }
    /// Writes `carve: warning: …` to stderr, one line whatever names it holds.
    public func warn(_ text: String) { writeError("carve: warning: \(escapedForTable(text))\n") }
    /// Writes a note to stderr, e.g. why sizes are missing.
    public func note(_ text: String) { writeError("carve: \(escapedForTable(text))\n") }
}

/// A command's result when it is not plain success: the command has already
/// printed its report and now ends with this status.
public struct CommandExit: Error, Sendable {
    public let status: ExitStatus
    public init(_ status: ExitStatus) { self.status = status }
}
