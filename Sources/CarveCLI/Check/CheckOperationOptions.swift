import ArgumentParser
import CarveCore

/// What `check` is asked about: one of a shrink, a new partition or a removal.
struct CheckOperationOptions: ParsableArguments {
    @Option(
        name: .customLong("shrink-to"), parsing: .unconditional,
        help: ArgumentHelp("Shrink the filesystem and its partition to SIZE.", valueName: "SIZE"))
    var shrinkTo: String?

    @Option(
        name: .customLong("shrink-by"), parsing: .unconditional,
        help: ArgumentHelp("Shrink the filesystem and its partition by SIZE.", valueName: "SIZE"))
    var shrinkBy: String?

    @Option(
        name: .customLong("new-partition"), parsing: .unconditional,
        help: ArgumentHelp("Find room for a new partition of SIZE on the disk.", valueName: "SIZE"))
    var newPartition: String?

    @Flag(
        help:
            "Take the device out of its multi-device btrfs (btrfs device remove): can the other devices hold everything?"
    )
    var remove = false

    /// Exactly one of the four operations, its size parsed.
    func operation() throws -> CheckOperation {
        if remove {
            guard shrinkTo == nil, shrinkBy == nil, newPartition == nil else {
                throw UsageError("check needs exactly one of --shrink-to, --shrink-by, --new-partition and --remove")
            }
            return .remove
        }
        let given: [(String, String, (UInt64) -> CheckOperation)] = [
            ("--shrink-to", shrinkTo, CheckOperation.shrinkTo), ("--shrink-by", shrinkBy, CheckOperation.shrinkBy),
            ("--new-partition", newPartition, CheckOperation.newPartition),
        ].compactMap { name, value, make in value.map { (name, $0, make) } }
        guard given.count == 1, let (name, text, make) = given.first else {
            throw UsageError("check needs exactly one of --shrink-to, --shrink-by, --new-partition and --remove")
        }
        let bytes = try ByteSize.parse(text)
        guard bytes > 0 else { throw UsageError("\(name) \(text): the size must be larger than zero") }
        return make(bytes)
    }
}

extension Services {
    /// What `check` reads the machine through.
    var checkEnvironment: CheckEnvironment {
        var environment = CheckEnvironment(
            devices: devices, tables: partitionTables, sizer: filesystemSizer, mounts: mounts, snapshots: snapshots,
            schedules: snapshotSchedules, zfsPools: zfsPools)
        environment.pinned = backends
        return environment
    }
}
