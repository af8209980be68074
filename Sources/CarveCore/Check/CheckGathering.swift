/// The protocols `carve check` reads the machine through; tests hand in fakes.
public struct CheckEnvironment: Sendable {
    public var devices: any DeviceSource
    public var tables: any PartitionTableReader
    public var sizer: any FilesystemSizer
    public var mounts: any MountTable
    public var snapshots: any SnapshotListing
    /// The timers and cron jobs that take snapshots; nil reads none.
    public var schedules: (any SnapshotScheduleReader)?
    /// Which files the snapshots in the way hold; nil names none.
    public var pinned: (any PinnedFileReading)? = nil
    /// ZFS pools' layouts, for a `zfs_member` device; nil reads none.
    public var zfsPools: (any ZFSPoolReading)?

    public init(
        devices: any DeviceSource, tables: any PartitionTableReader, sizer: any FilesystemSizer,
        mounts: any MountTable, snapshots: any SnapshotListing, schedules: (any SnapshotScheduleReader)? = nil,
        zfsPools: (any ZFSPoolReading)? = nil
    ) {
        self.devices = devices; self.tables = tables; self.sizer = sizer; self.mounts = mounts;
        self.snapshots = snapshots; self.schedules = schedules; self.zfsPools = zfsPools
    }
}

/// `carve check`: validates the request, gathers the facts, asks the planner. Read-only.
public enum Check {
    public static func run(
        device path: String, operation: CheckOperation, in environment: CheckEnvironment
    ) throws -> CheckReport {
        let (planned, subject) = try plan(device: path, operation: operation, in: environment)
        guard let subject else { return planned }
        let report = withPinnedFiles(planned, of: subject, reader: environment.pinned)
        guard let reader = environment.schedules else { return report }
        return try withTimers(report, of: subject, reader: reader, mounts: environment.mounts.mounts())
    }

    /// The planner's report, and the filesystem it is about (nil for a new partition in a gap).
    static func plan(
        device path: String, operation: CheckOperation, in environment: CheckEnvironment
    ) throws -> (CheckReport, ShrinkSubject?) {
        let device = try environment.devices.device(at: path)
        // A partition needs nothing but itself and its disk's table: the whole machine
        // is probed only for a disk, whose partitions must be found.
        let all = device.kind == .part ? [] : try environment.devices.devices()
        let gatherer = Gatherer(environment: environment, devices: all)
        switch operation {
        case .shrinkTo(let bytes), .shrinkBy(let bytes):
            guard bytes > 0 else { throw UsageError("\(operation.name): the size must be larger than zero") }
            if try isPartitionedDisk(device, devices: all, tables: environment.tables) {
                throw UsageError(
                    "\(path) is a disk with a partition table: name one of its partitions, or use --new-partition")
            }
            let target = try shrinkTarget(operation, device: device)
            // Snapshot sizes matter only when the target is below what the filesystem needs.
            let subject = try gatherer.subject(device) { subject in
                guard let minimum = subject.figures.minimum else { return true }
                return target < minimum || subject.figures.btrfs?.fits(size: target) == false
            }
            return (CheckPlanner.shrink(subject, to: target, operation: operation), subject)
        case .newPartition(let bytes):
            guard bytes > 0 else { throw UsageError("new-partition: the size must be larger than zero") }
            guard device.kind != .part else {
                throw UsageError("\(path) is a partition: --new-partition needs a whole disk")
            }
            guard let table = try environment.tables.table(ofDisk: device.path) else {
                throw UsageError("\(path) has no partition table: create one first (fdisk, sfdisk --label gpt)")
            }
            let children = all.filter { $0.parent == device.name && $0.kind == .part }
            let subjects = try children.map { try gatherer.subject($0, table: table) }
            let report = CheckPlanner.newPartition(on: device, table: table, bytes: bytes, subjects: subjects)
            let number = report.shrunkPartition?.number
            return (report, subjects.first { number != nil && $0.partition?.number == number })
        case .remove:
            guard device.properties.fsType == "btrfs" else {
                throw UsageError(
                    "--remove: \(path) holds \(device.properties.fsType ?? "no filesystem"), not a device of a multi-device btrfs"
                )
            }
            let subject = try gatherer.subject(device)
            return (CheckPlanner.remove(subject), subject)
        }
    }

    /// The report with the timers that would snapshot the subject's filesystem meanwhile.
    static func withTimers(
        _ report: CheckReport, of subject: ShrinkSubject, reader: any SnapshotScheduleReader, mounts: [MountEntry]
    ) -> CheckReport {
        var report = report
        let found = SnapshotTimerPlanner.timers(
            for: subject.mountpoints, uuid: subject.device.properties.uuid, mounts: mounts, in: reader.schedules())
        report.timers = found.timers
        if !found.timers.isEmpty { report.notes += found.notes }
        return report
    }

    /// How many of the files the snapshots in the way hold the report names: the few
    /// that pin most of the space, so that deleting them is an informed choice.
    static let pinnedFilesNamed = 5

    /// The snapshots blocker with the files that pin most of its space; a note when
    /// they cannot be read (the blocker stands as it is).
    static func withPinnedFiles(
        _ report: CheckReport, of subject: ShrinkSubject, reader: (any PinnedFileReading)?
    ) -> CheckReport {
        guard let reader, let listing = subject.snapshots,
            let index = report.blockers.firstIndex(where: { $0.kind == .snapshots && !$0.snapshotIDs.isEmpty })
        else { return report }
        var report = report
        do {
            let pinned = try reader.pinnedFiles(
                of: report.blockers[index].snapshotIDs, on: listing.filesystem, exact: listing.exact)
            let named = pinned.naming(from: listing.subvolumes, on: listing.filesystem)
            report.blockers[index].pinnedFiles = Array(named.files.prefix(pinnedFilesNamed))
        } catch {
            let reason = (error as? any ReportableError)?.message ?? "\(error)"
            report.notes.append("cannot name the files the snapshots in the way hold: \(reason)")
        }
        return report
    }

    /// True for a whole device that holds partitions rather than one filesystem: it has
    /// partitions, or libfdisk finds a table and no filesystem is on the device itself
    /// (a FAT boot sector can look like a DOS table; udev's PTTYPE can be stale).
    static func isPartitionedDisk(
        _ device: BlockDevice, devices: [BlockDevice], tables: any PartitionTableReader
    ) throws -> Bool {
        guard device.kind != .part else { return false }
        if devices.contains(where: { $0.parent == device.name && $0.kind == .part }) { return true }
        guard device.properties.fsType == nil else { return false }
        return try tables.table(ofDisk: device.path) != nil
    }

    static func shrinkTarget(_ operation: CheckOperation, device: BlockDevice) throws(UsageError) -> UInt64 {
        let current = "\(device.path) is \(ByteSize.format(device.size)) (\(device.size) bytes)"
        switch operation {
        case .shrinkTo(let bytes):
            guard bytes <= device.size else {
                throw UsageError("cannot shrink to \(ByteSize.format(bytes)): \(current)")
            }
            return bytes
        case .shrinkBy(let bytes):
            guard bytes < device.size else {
                throw UsageError("cannot shrink by \(ByteSize.format(bytes)): \(current)")
            }
            return device.size - bytes
        case .newPartition(let bytes):
            return bytes
        case .remove:
            return 0
        }
    }
}

/// Collects one filesystem's facts from the protocols.
struct Gatherer {
    let environment: CheckEnvironment
    let devices: [BlockDevice]

    /// `needsSnapshotSizes`: whether the subject's snapshots may stand in the way, so that
    /// an exact scan is worth its time when quotas are off.
    func subject(
        _ device: BlockDevice, table knownTable: PartitionTable? = nil,
        needsSnapshotSizes: (ShrinkSubject) -> Bool = { _ in true }
    ) throws -> ShrinkSubject {
        let mountpoints = try mountpoints(of: device)
        let figures: FilesystemFigures
        do {
            figures = try environment.sizer.figures(of: device, mountpoint: mountpoints.first)
        } catch let error as any ReportableError where error.exitStatus != .needsRoot {
            // A figure that cannot be read makes the minimum unknown; lacking root is said as such.
            figures = FilesystemFigures(fsType: device.properties.fsType, source: "nothing", note: error.message)
        }
        var subject = ShrinkSubject(device: device, mountpoints: mountpoints, figures: figures)
        ZFSMemberCheck.gather(&subject, pools: environment.zfsPools)
        if device.kind == .part, let parent = device.parent {
            let diskPath = devices.first { $0.name == parent }?.path ?? "/dev/\(parent)"
            if let table = try knownTable ?? environment.tables.table(ofDisk: diskPath) {
                subject.table = table
                subject.diskPath = diskPath
                subject.partition = entry(for: device, in: table)
            }
        }
        if subject.fsType == "btrfs", let mountpoint = mountpoints.first {
            do {
                let filesystem = try environment.snapshots.filesystem(containing: mountpoint)
                var listing = try environment.snapshots.subvolumes(of: filesystem, sizes: .quota)
                // Quotas off: the exact scan (root, read-only) names the snapshots that make it fit.
                if listing.sizes == .none, needsSnapshotSizes(subject),
                    let exact = try? environment.snapshots.subvolumes(of: filesystem, sizes: .exact)
                {
                    listing = exact
                }
                subject.snapshots = listing
                if listing.sizes == .none, let note = listing.sizeNote { subject.snapshotNote = note }
            } catch let error as any ReportableError {
                subject.snapshotNote = "cannot list the snapshots of \(mountpoint): \(error.message)"
            }
        }
        return subject
    }

    /// Where the device is mounted: the mount table by device number, then what the
    /// device source knows, each place once.
    func mountpoints(of device: BlockDevice) throws -> [String] {
        var places = try environment.mounts.mounts().filter { $0.number == device.number }.map(\.mountpoint)
        for member in try sameFilesystem(as: device) {
            for place in member.mountpoints where !places.contains(place) { places.append(place) }
        }
        var seen: Set<String> = []
        return places.filter { seen.insert($0).inserted }
    }

    /// `device`, and for btrfs every other device of its filesystem: the kernel names one
    /// device in the mount table for all of them, and the device source attaches the
    /// mount to each (by UUID).
    func sameFilesystem(as device: BlockDevice) throws -> [BlockDevice] {
        guard device.properties.fsType == "btrfs", let uuid = device.properties.uuid else { return [device] }
        let members = try (devices.isEmpty ? environment.devices.devices() : devices)
            .filter { $0.properties.fsType == "btrfs" && $0.properties.uuid == uuid && $0.path != device.path }
        return [device] + members
    }

    /// The table entry of a partition: by start sector (sysfs counts 512-byte units),
    /// else by number.
    func entry(for device: BlockDevice, in table: PartitionTable) -> PartitionEntry? {
        if let start = device.start,
            let entry = table.partitions.first(where: { $0.start * table.sectorSize == start * 512 })
        {
            return entry
        }
        return device.properties.partNumber.flatMap { table.partition(number: $0) }
    }
}
