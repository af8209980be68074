import CarveCore

/// One row of `carve devices`: a device and the tree drawing before its name.
public struct DeviceRow: Sendable {
    public var device: BlockDevice
    public var treePrefix: String
    public init(_ device: BlockDevice, treePrefix: String = "") { self.device = device; self.treePrefix = treePrefix }
}

/// The columns of `carve devices`, named and typed as lsblk's: the same list gives
/// the table headers, the JSON keys (those of `lsblk -J -b`) and `--output` validation.
public enum DeviceColumns {
    public static let defaults = ["NAME", "SIZE", "TYPE", "FSTYPE", "LABEL", "UUID", "MOUNTPOINTS"]

    public static let all: [Column<DeviceRow>] = [
        Column("NAME", help: "device name", text: { row, _ in row.treePrefix + escapedForTable(row.device.displayName) },
               json: { .string($0.device.displayName) }),
        Column("KNAME", help: "internal kernel device name", text: { row, _ in escapedForTable(row.device.name) },
               json: { .string($0.device.name) }),
        Column("PATH", help: "path to the device node", text: { row, _ in escapedForTable(row.device.path) },
               json: { .string($0.device.path) }),
        Column("MAJ:MIN", help: "major:minor device number", text: { row, _ in row.device.number.description },
               json: { .string($0.device.number.description) }),
        Column("SIZE", help: "size of the device", rightAligned: true,
               text: { row, bytes in bytes ? String(row.device.size) : ByteSize.format(row.device.size) },
               json: { .uint($0.device.size) }),
        Column("TYPE", help: "device type", text: { row, _ in row.device.type },
               json: { .string($0.device.type) }),
        property("FSTYPE", "filesystem type", \.fsType),
        property("FSVER", "filesystem version", \.fsVersion),
        property("LABEL", "filesystem LABEL", \.label),
        property("UUID", "filesystem UUID", \.uuid),
        property("PARTUUID", "partition UUID", \.partUUID),
        property("PARTTYPE", "partition type code or UUID", \.partType),
        property("PARTLABEL", "partition LABEL", \.partLabel),
        property("PTTYPE", "partition table type", \.ptType),
        property("PTUUID", "partition table identifier (usually UUID)", \.ptUUID),
        flag("RO", "read-only device", \.readOnly),
        flag("RM", "removable device", \.removable),
        flag("ROTA", "rotational device", \.rotational),
        property("MODEL", "device identifier", \.model),
        property("SERIAL", "disk serial number", \.serial),
        Column("START", help: "partition start offset (in 512-byte sectors)", rightAligned: true,
               text: { row, _ in row.device.start.map(String.init) ?? "" }, json: { .uint($0.device.start) }),
        Column("LOG-SEC", help: "logical sector size", rightAligned: true,
               text: { row, _ in String(row.device.sectorSize) }, json: { .uint($0.device.sectorSize) }),
        Column("PKNAME", help: "internal parent kernel device name",
               text: { row, _ in escapedForTable(parentName(of: row.device) ?? "") },
               json: { .string(parentName(of: $0.device)) }),
        Column("MOUNTPOINT", help: "where the device is mounted",
               text: { row, _ in escapedForTable(row.device.mountpoints.first ?? "") },
               json: { .string($0.device.mountpoints.first) }),
        // lsblk prints an unmounted device's MOUNTPOINTS as [null], and one line per mountpoint.
        Column("MOUNTPOINTS", help: "all locations where device is mounted",
               text: { row, _ in row.device.mountpoints.map(escapedForTable).joined(separator: "\n") },
               json: { row in
                   .array(row.device.mountpoints.isEmpty ? [.null] : row.device.mountpoints.map { .string($0) })
               }),
    ]

    /// The columns `--output` names (nil: the defaults); "+COLS" adds to the defaults.
    public static func select(_ spec: String?) throws(UsageError) -> [Column<DeviceRow>] {
        try selectColumns(spec, from: all, defaults: defaults)
    }

    /// The `--output help` text: every column and what it shows.
    public static var helpText: String {
        let width = all.map(\.name.count).max() ?? 0
        return "Available columns for --output:\n" + all.map { column in
            "  " + column.name + String(repeating: " ", count: width - column.name.count) + "  " + column.help
        }.joined(separator: "\n") + "\n"
    }

    /// The device a device sits on: a partition's disk, else the first device it is stacked on.
    static func parentName(of device: BlockDevice) -> String? { device.parent ?? device.slaves.first }

    private static func property(
        _ name: String, _ help: String, _ field: KeyPath<DeviceProperties, String?> & Sendable
    ) -> Column<DeviceRow> {
        Column(name, help: help, text: { row, _ in escapedForTable(row.device.properties[keyPath: field] ?? "") },
               json: { .string($0.device.properties[keyPath: field]) })
    }

    private static func flag(_ name: String, _ help: String, _ field: KeyPath<BlockDevice, Bool> & Sendable) -> Column<DeviceRow> {
        Column(name, help: help, rightAligned: true, text: { row, _ in row.device[keyPath: field] ? "1" : "0" },
               json: { .bool($0.device[keyPath: field]) })
    }
}
