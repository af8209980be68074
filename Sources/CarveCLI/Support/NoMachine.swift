import CarveCore

/// The machine a command sees when nobody chose one: no devices, mounts, partition
/// tables or snapshots, a clock stopped at 1970 in UTC, output dropped. It is the
/// default of `Services.current` and of `Services.init`, so that a test that hands in
/// no services cannot read or change the machine it runs on; carve's `main` asks for
/// `Services.system()` by name.
public struct NoMachine: DeviceSource, SnapshotBackend, WallClock, OutputSink, PartitionTableReader,
    FilesystemSizer, MountTable, FilesystemSpaceSource
{
    public init() {}

    var unavailable: RuntimeError { RuntimeError("no machine: these services were not chosen (Services.system())") }

    public func devices() throws -> [BlockDevice] { [] }
    public func device(at path: String) throws -> BlockDevice { throw unavailable }
    public var fieldsNeedingRoot: [String] { [] }

    public func mountedFilesystems() throws -> [Filesystem] { [] }
    public func filesystem(containing path: String) throws -> Filesystem { throw unavailable }
    public func locate(_ path: String, among filesystems: [Filesystem]) -> VolumeLocation? { nil }
    public func subvolumes(of filesystem: Filesystem, sizes: SizeMode) throws -> VolumeListing { throw unavailable }

    public func currentState(of subvolume: Volume, on filesystem: Filesystem) throws -> Volume? { throw unavailable }
    public func refreshingCloneState(of subvolume: Volume, on filesystem: Filesystem) throws -> Volume {
        throw unavailable
    }
    public func nestedVolumes(of subvolume: Volume, on filesystem: Filesystem) throws -> [Volume] {
        throw unavailable
    }
    public func deleteSubvolume(_ subvolume: Volume, on filesystem: Filesystem, recursive: Bool) throws {
        throw unavailable
    }
    public func waitForCleanup(of ids: [UInt64], on filesystem: Filesystem) throws { throw unavailable }
    public func spaceUsage(of filesystem: Filesystem) throws -> SpaceUsage { throw unavailable }
    public func resolvedPath(_ path: String) -> String? { nil }
    public var workingDirectory: String { "/" }

    public var now: Date { Date(timeIntervalSince1970: 0) }
    public var timeZone: TimeZone { .utc }

    public func write(_ text: String) {}
    public func writeError(_ text: String) {}

    public func table(ofDisk path: String) throws -> PartitionTable? { nil }
    public func figures(of device: BlockDevice, mountpoint: String?) throws -> FilesystemFigures { throw unavailable }
    public func mounts() throws -> [MountEntry] { [] }
    public func usage(at mountpoint: String) -> FilesystemUsage? { nil }
}
