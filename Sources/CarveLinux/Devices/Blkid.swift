import CBlkid
import CarveCore
import Glibc

/// A libblkid low-level probe on one device, opened read-only; freed when dropped.
final class BlkidProbe {
    let handle: blkid_probe
    let path: String

    /// Opens `path` read-only (libblkid never writes during a probe).
    init(path: String) throws(SystemCallError) {
        guard let handle = ByteText.withCString(path, { blkid_new_probe_from_filename($0) }) else {
            throw SystemCallError("cannot probe \(path)", call: "blkid_new_probe_from_filename", errno: errno)
        }
        self.handle = handle
        self.path = path
    }

    deinit { blkid_free_probe(handle) }

    /// Looks for filesystems (type, label, UUID, version) and, with `partitions`,
    /// partition tables with entry details.
    func enableContentProbing(superblocks: Bool = true, partitions: Bool = true) throws(SystemCallError) {
        try check(blkid_probe_enable_superblocks(handle, superblocks ? 1 : 0), "blkid_probe_enable_superblocks")
        if superblocks {
            let flags = BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID | BLKID_SUBLKS_TYPE | BLKID_SUBLKS_VERSION
            try check(blkid_probe_set_superblocks_flags(handle, flags), "blkid_probe_set_superblocks_flags")
        }
        try check(blkid_probe_enable_partitions(handle, partitions ? 1 : 0), "blkid_probe_enable_partitions")
        if partitions {
            try check(
                blkid_probe_set_partitions_flags(handle, BLKID_PARTS_ENTRY_DETAILS), "blkid_probe_set_partitions_flags")
        }
    }

    /// Runs `blkid_do_safeprobe`: false when nothing (or something ambiguous) was found.
    func safeProbe() throws(SystemCallError) -> Bool {
        let result = blkid_do_safeprobe(handle)
        if result < 0 && result != -2 {
            throw SystemCallError("cannot probe \(path)", call: "blkid_do_safeprobe", errno: errno)
        }
        return result == 0
    }

    /// The partition table on this device, by partition number, as libblkid reads it
    /// (`blkid_probe_get_partitions`): one read of the table for all its partitions.
    func partitionTable() -> PartitionTableEntries? {
        guard let list = blkid_probe_get_partitions(handle) else { return nil }
        let table = blkid_partlist_get_table(list)
        var entries = PartitionTableEntries(
            type: table.flatMap { blkid_parttable_get_type($0) }.map { String(cString: $0) },
            id: table.flatMap { blkid_parttable_get_id($0) }.map { String(cString: $0) })
        for index in 0..<max(0, blkid_partlist_numof_partitions(list)) {
            guard let partition = blkid_partlist_get_partition(list, index) else { continue }
            let type =
                blkid_partition_get_type_string(partition).map { String(cString: $0) }
                ?? "0x" + String(UInt32(bitPattern: blkid_partition_get_type(partition)), radix: 16)
            entries.partitions[Int(blkid_partition_get_partno(partition))] = DeviceProperties(
                partUUID: blkid_partition_get_uuid(partition).map { String(cString: $0) },
                partType: type,
                partLabel: blkid_partition_get_name(partition).map { ByteText.decode(cString: $0) }.flatMap {
                    $0.isEmpty ? nil : $0
                })
        }
        return entries
    }

    /// A value found by the probe, e.g. "TYPE" or "PART_ENTRY_UUID".
    func value(_ name: String) -> String? {
        var data: UnsafePointer<CChar>?
        guard blkid_probe_lookup_value(handle, name, &data, nil) == 0, let data else { return nil }
        return ByteText.decode(cString: data)
    }

    private func check(_ result: Int32, _ call: String) throws(SystemCallError) {
        guard result == 0 else { throw SystemCallError("cannot probe \(path)", call: call, errno: errno) }
    }
}

/// A disk's partition table as libblkid reads it: its type, its identifier, and
/// each partition's entry (PARTUUID, PARTTYPE, PARTLABEL) by partition number.
struct PartitionTableEntries {
    var type: String?
    var id: String?
    var partitions: [Int: DeviceProperties] = [:]
}

/// Properties from probing the device itself with libblkid: what udev lacks,
/// and everything when udevd is not running. Needs read access to the device node.
///
/// A disk's partition table is read once and kept for its partitions: probing each
/// partition for its entry details would make libblkid parse the table again each time.
public struct BlkidPropertySource: DevicePropertySource {
    public let name = "blkid"
    public let fields = DeviceField.probed
    private let tables = TableCache()

    public init() {}

    public func properties(of device: BlockDevice, parent: BlockDevice?) throws -> DeviceProperties? {
        // An empty device (an unused loop, a drive with no medium) has nothing to probe.
        guard device.size > 0 else { return nil }
        if device.kind == .part, let parent, let number = device.properties.partNumber,
            let table = try table(of: parent), let entry = table.partitions[number]
        {
            let filesystem = try probe(device.path, partitions: false) ?? DeviceProperties()
            var found = filesystem.filling(from: entry)
            found.partNumber = number
            found.ptType = table.type
            found.ptUUID = table.id
            return found
        }
        return try probe(device.path, partitions: true, keepingTableAs: device.name)
    }

    /// Probes `path`: filesystems, and with `partitions` also partition tables and
    /// entry details. A table found is kept under `tableName` for the partitions.
    private func probe(
        _ path: String, partitions: Bool, keepingTableAs tableName: String? = nil
    ) throws -> DeviceProperties? {
        let probe = try BlkidProbe(path: path)
        try probe.enableContentProbing(superblocks: true, partitions: partitions)
        guard try probe.safeProbe() else { return nil }
        let found = DeviceProperties(
            fsType: probe.value("TYPE"), fsVersion: probe.value("VERSION"), uuid: probe.value("UUID"),
            label: probe.value("LABEL"), partUUID: probe.value("PART_ENTRY_UUID"),
            partType: probe.value("PART_ENTRY_TYPE"), partLabel: probe.value("PART_ENTRY_NAME"),
            partNumber: probe.value("PART_ENTRY_NUMBER").flatMap { Int($0) },
            ptType: probe.value("PTTYPE") ?? probe.value("PART_ENTRY_SCHEME"), ptUUID: probe.value("PTUUID")
        )
        // Reading the table list probes again and resets the values above: read them first.
        if let tableName, found.ptType != nil, let table = probe.partitionTable() {
            tables.store(table, for: tableName)
        }
        return found
    }

    /// The partition table of a partition's disk: kept from probing the disk, else read now.
    private func table(of disk: BlockDevice) throws -> PartitionTableEntries? {
        if let table = tables.table(for: disk.name) { return table }
        guard disk.size > 0 else { return nil }
        let table = try BlkidProbe(path: disk.path).partitionTable()
        if let table { tables.store(table, for: disk.name) }
        return table
    }
}

/// Partition tables read during one listing, by disk name.
private final class TableCache: @unchecked Sendable {
    private let lock = Lock()
    private var tables: [String: PartitionTableEntries] = [:]

    func table(for disk: String) -> PartitionTableEntries? {
        lock.lock()
        defer { lock.unlock() }
        return tables[disk]
    }

    func store(_ table: PartitionTableEntries, for disk: String) {
        lock.lock()
        defer { lock.unlock() }
        tables[disk] = table
    }
}
