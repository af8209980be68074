import CarveCore

/// One row of `carve devices`: a device and the tree drawing before its name.
public struct DeviceRow: Sendable {
    public var device: BlockDevice
    public var treePrefix: String
    /// The space of the filesystem at its mountpoint, when a FS* column asked for it.
    public var usage: FilesystemUsage?
    /// `--paths`: device names as /dev paths (NAME, KNAME, PKNAME), as lsblk -p.
    public var paths: Bool

    public init(_ device: BlockDevice, treePrefix: String = "", usage: FilesystemUsage? = nil, paths: Bool = false) {
        self.device = device; self.treePrefix = treePrefix; self.usage = usage; self.paths = paths
    }

    /// NAME: the mapper name of a dm device, else the kernel name; under --paths, its /dev path.
    var name: String {
        guard paths else { return device.displayName }
        return device.mapperName.map { "/dev/mapper/\($0)" } ?? DeviceRow.devPath(device.name)
    }

    var kernelName: String { paths ? DeviceRow.devPath(device.name) : device.name }
    var parentName: String? { DeviceColumns.parentName(of: device).map { paths ? DeviceRow.devPath($0) : $0 } }

    /// sysfs writes a "/" in a kernel name as "!" (cciss!c0d0 is /dev/cciss/c0d0).
    static func devPath(_ name: String) -> String {
        "/dev/" + name.split(separator: "!", omittingEmptySubsequences: false).joined(separator: "/")
    }
}

/// The columns of `carve devices`, named and typed as lsblk's: the same list gives
/// the table headers, the JSON keys (those of `lsblk -J -b`) and `--output` validation.
public enum DeviceColumns {
    public static let defaults = ["NAME", "SIZE", "TYPE", "FSTYPE", "LABEL", "UUID", "MOUNTPOINTS"]

    public static let all: [Column<DeviceRow>] = [
        cell("NAME", "device name", { $0.name }, prefix: { $0.treePrefix }),
        cell("KNAME", "internal kernel device name", { $0.kernelName }),
        cell("PATH", "path to the device node", { $0.device.path }),
        // A table aligns the colon as lsblk does ("  8:0  "); JSON, --raw and --pairs say "8:0".
        Column(
            "MAJ:MIN", help: "major:minor device number", widthHint: 6,
            text: { row, _ in aligned(row.device.number) },
            json: { .string($0.device.number.description) }, plain: { row, _ in row.device.number.description }),
        Column(
            "SIZE", help: "size of the device", rightAligned: true, widthHint: 5,
            text: { row, bytes in bytes ? String(row.device.size) : ByteSize.format(row.device.size) },
            json: { .uint($0.device.size) }),
        Column(
            "TYPE", help: "device type", widthHint: 4, text: { row, _ in row.device.type },
            json: { .string($0.device.type) }),
        property("FSTYPE", "filesystem type", \.fsType),
        property("FSVER", "filesystem version", \.fsVersion),
        property("LABEL", "filesystem LABEL", \.label),
        property("UUID", "filesystem UUID", \.uuid, widthHint: 36),
        property("PARTUUID", "partition UUID", \.partUUID, widthHint: 36),
        property("PARTTYPE", "partition type code or UUID", \.partType, widthHint: 36),
        property("PARTLABEL", "partition LABEL", \.partLabel),
        property("PTTYPE", "partition table type", \.ptType),
        property("PTUUID", "partition table identifier (usually UUID)", \.ptUUID, widthHint: 36),
        flag("RO", "read-only device", \.readOnly),
        flag("RM", "removable device", \.removable),
        flag("ROTA", "rotational device", \.rotational),
        property("MODEL", "device identifier", \.model),
        property("SERIAL", "disk serial number", \.serial),
        Column(
            "START", help: "partition start offset (in 512-byte sectors)", rightAligned: true, widthHint: 5,
            text: { row, _ in row.device.start.map(String.init) ?? "" }, json: { .uint($0.device.start) }),
        Column(
            "LOG-SEC", help: "logical sector size", rightAligned: true, widthHint: 7,
            text: { row, _ in String(row.device.sectorSize) }, json: { .uint($0.device.sectorSize) }),
        cell("PKNAME", "internal parent kernel device name", { $0.parentName }),
        cell("MOUNTPOINT", "where the device is mounted", { $0.device.primaryMountpoint }),
        // lsblk prints an unmounted device's MOUNTPOINTS as [null], and one line per mountpoint.
        Column(
            "MOUNTPOINTS", help: "all locations where device is mounted",
            text: { row, _ in row.device.mountpoints.map(escapedForTable).joined(separator: "\n") },
            json: { row in
                .array(row.device.mountpoints.isEmpty ? [.null] : row.device.mountpoints.map { .string($0) })
            },
            plain: { row, _ in row.device.mountpoints.joined(separator: "\n") }),
        space("FSSIZE", "filesystem size", \.size),
        space("FSUSED", "filesystem size used", \.used),
        space("FSAVAIL", "filesystem size available", \.available),
        Column(
            "FSUSE%", help: "filesystem use percentage", rightAligned: true, widthHint: 3,
            text: { row, _ in row.usage?.usePercent ?? "" }, json: { .string($0.usage?.usePercent) }),
    ]

    /// The columns `--output` names (nil: the defaults); "+COLS" adds to the defaults.
    public static func select(_ spec: String?) throws(UsageError) -> [Column<DeviceRow>] {
        try selectColumns(spec, from: all, defaults: defaults)
    }

    /// The `--output help` text: every column and what it shows.
    public static var helpText: String {
        let width = all.map(\.name.count).max() ?? 0
        return "Available columns for --output:\n"
            + all.map { column in
                "  " + column.name + String(repeating: " ", count: width - column.name.count) + "  " + column.help
            }.joined(separator: "\n") + "\n"
    }

    /// The device a device sits on: a partition's disk, else the first device it is stacked on.
    static func parentName(of device: BlockDevice) -> String? { device.parent ?? device.slaves.first }

    /// The columns that need the space of a mounted filesystem (statvfs).
    public static let spaceColumns: Set<String> = ["FSSIZE", "FSUSED", "FSAVAIL", "FSUSE%"]

    private static func property(
        _ name: String, _ help: String, _ field: KeyPath<DeviceProperties, String?> & Sendable, widthHint: Int = 0
    ) -> Column<DeviceRow> {
        cell(name, help, { $0.device.properties[keyPath: field] }, widthHint: widthHint)
    }

    /// lsblk's "%3u:%-3u".
    static func aligned(_ number: DeviceNumber) -> String {
        let major = String(number.major), minor = String(number.minor)
        return String(repeating: " ", count: max(0, 3 - major.count)) + major + ":" + minor
            + String(repeating: " ", count: max(0, 3 - minor.count))
    }

    /// A text column: escaped in the table, exact in JSON, --raw and --pairs.
    private static func cell(
        _ name: String, _ help: String, _ value: @escaping @Sendable (DeviceRow) -> String?,
        prefix: @escaping @Sendable (DeviceRow) -> String = { _ in "" }, widthHint: Int = 0
    ) -> Column<DeviceRow> {
        Column(
            name, help: help, widthHint: widthHint, text: { row, _ in prefix(row) + escapedForTable(value(row) ?? "") },
            json: { .string(value($0)) }, plain: { row, _ in value(row) ?? "" })
    }

    /// A size of the mounted filesystem, as lsblk prints it: "0" for none, null when not mounted.
    private static func space(
        _ name: String, _ help: String, _ field: KeyPath<FilesystemUsage, UInt64> & Sendable
    ) -> Column<DeviceRow> {
        Column(
            name, help: help, rightAligned: true, widthHint: 5,
            text: { row, bytes in
                guard let value = row.usage?[keyPath: field] else { return "" }
                return bytes || value == 0 ? String(value) : ByteSize.format(value)
            },
            json: { .uint($0.usage?[keyPath: field]) })
    }

    private static func flag(
        _ name: String, _ help: String, _ field: KeyPath<BlockDevice, Bool> & Sendable
    ) -> Column<DeviceRow> {
        Column(
            name, help: help, rightAligned: true, text: { row, _ in row.device[keyPath: field] ? "1" : "0" },
            json: { .bool($0.device[keyPath: field]) })
    }
}
