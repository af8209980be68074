import CarveCore

extension CheckCommand {
    /// Exactly one of the four operations, its size parsed.
    func requestedOperation() throws -> CheckOperation {
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
        CheckEnvironment(devices: devices, tables: partitionTables, sizer: filesystemSizer, mounts: mounts, snapshots: snapshots)
    }
}
