import CarveCore
import CFdisk
import Glibc

/// Reads partition tables with libfdisk, always read-only.
public struct FdiskPartitionTableReader: PartitionTableReader {
    public init() {}

    public func table(ofDisk path: String) throws -> PartitionTable? {
        let context = try FdiskContext(readOnly: path)
        return try context.table()
    }
}

/// Owns one `fdisk_context` with a device assigned read-only (`fdisk_assign_device(ctx, path, 1)`).
final class FdiskContext {
    private let context: OpaquePointer
    let path: String
    /// fdisk_deassign_device asserts that a device is assigned.
    private var assigned = false

    init(readOnly path: String) throws {
        self.path = path
        guard let context = fdisk_new_context() else {
            throw SystemCallError(
                "cannot read the partition table of \(path)", call: "fdisk_new_context", errno: ENOMEM)
        }
        // deinit runs even when this init throws below, and releases the context.
        self.context = context
        let status = ByteText.withCString(path) { fdisk_assign_device(context, $0, 1) }
        guard status >= 0 else {
            throw SystemCallError(
                "cannot open \(path) to read its partition table", call: "fdisk_assign_device", errno: -status)
        }
        assigned = true
    }

    deinit {
        if assigned { _ = fdisk_deassign_device(context, 1) }
        fdisk_unref_context(context)
    }

    /// The table, or nil when the device has none.
    func table() throws -> PartitionTable? {
        guard fdisk_has_label(context) == 1, let label = fdisk_get_label(context, nil),
            let name = fdisk_label_get_name(label)
        else { return nil }
        let labelName = String(cString: name)
        guard let kind = PartitionTableLabel(rawValue: labelName) else {
            throw RuntimeError("\(path): partition table type '\(labelName)' is not supported")
        }
        return PartitionTable(
            label: kind, sectorSize: UInt64(fdisk_get_sector_size(context)),
            grain: UInt64(fdisk_get_grain_size(context)),
            firstUsableLBA: UInt64(fdisk_get_first_lba(context)), lastUsableLBA: UInt64(fdisk_get_last_lba(context)),
            totalSectors: UInt64(fdisk_get_nsectors(context)),
            partitions: try partitions(), freeGaps: try freeGaps()
        )
    }

    /// Used partitions with a start and size; DOS extended containers are left out
    /// (their logical partitions are listed).
    private func partitions() throws -> [PartitionEntry] {
        let table = try FdiskTable(of: self, call: "fdisk_get_partitions") { fdisk_get_partitions(context, &$0) }
        return table.entries.compactMap { entry in
            guard fdisk_partition_is_used(entry) == 1, fdisk_partition_is_container(entry) == 0,
                fdisk_partition_has_start(entry) == 1, fdisk_partition_has_size(entry) == 1,
                fdisk_partition_has_partno(entry) == 1
            else { return nil }
            return PartitionEntry(
                number: Int(fdisk_partition_get_partno(entry)) + 1,
                start: UInt64(fdisk_partition_get_start(entry)), size: UInt64(fdisk_partition_get_size(entry)),
                type: typeName(of: entry), name: name(of: entry)
            )
        }
    }

    private func freeGaps() throws -> [FreeGap] {
        let table = try FdiskTable(of: self, call: "fdisk_get_freespaces") { fdisk_get_freespaces(context, &$0) }
        return table.entries.compactMap { entry in
            guard fdisk_partition_has_start(entry) == 1, fdisk_partition_has_size(entry) == 1 else { return nil }
            let size = UInt64(fdisk_partition_get_size(entry))
            return size == 0 ? nil : FreeGap(start: UInt64(fdisk_partition_get_start(entry)), size: size)
        }
    }

    /// The GPT name; nil when empty, as sfdisk leaves it out.
    private func name(of entry: OpaquePointer) -> String? {
        guard let name = fdisk_partition_get_name(entry), name.pointee != 0 else { return nil }
        return String(cString: name)
    }

    /// A GPT type GUID, or a DOS type code in hex as sfdisk prints it ("83").
    private func typeName(of entry: OpaquePointer) -> String {
        guard let type = fdisk_partition_get_type(entry) else { return "" }
        if let text = fdisk_parttype_get_string(type) { return String(cString: text) }
        return String(fdisk_parttype_get_code(type), radix: 16)
    }
}

/// Owns one `fdisk_table` filled by libfdisk; released with `fdisk_unref_table`.
final class FdiskTable {
    private let table: OpaquePointer

    init(of context: FdiskContext, call: String, fill: (inout OpaquePointer?) -> Int32) throws {
        var table: OpaquePointer?
        let status = fill(&table)
        guard status >= 0, let table else {
            if let table { fdisk_unref_table(table) }
            throw SystemCallError("cannot read the partition table of \(context.path)", call: call, errno: -status)
        }
        self.table = table
    }

    deinit { fdisk_unref_table(table) }

    /// The partitions it holds; valid while this table lives.
    var entries: [OpaquePointer] {
        (0..<fdisk_table_get_nents(table)).compactMap { fdisk_table_get_partition(table, $0) }
    }
}
