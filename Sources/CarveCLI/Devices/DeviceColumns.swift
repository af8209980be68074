import CarveCore

/// One row of `carve devices`: a device and the tree drawing before its name.
public struct DeviceRow: Sendable {
    public var device: BlockDevice
    public var treePrefix: String
    /// The space of the filesystem at its mountpoint, when a FS* column asked for it.
    public var usage: FilesystemUsage?
    /// `--paths`: device names as /dev paths (NAME, KNAME, PKNAME), as lsblk -p.
    public var paths: Bool
    /// The device this row sits under in the tree, which PKNAME shows; nil for a root
    /// or outside a tree (then a partition's disk, else the first device it sits on).
    public var treeParent: String?

    public init(
        _ device: BlockDevice, treePrefix: String = "", usage: FilesystemUsage? = nil, paths: Bool = false,
        treeParent: String? = nil
    ) {
        self.device = device; self.treePrefix = treePrefix; self.usage = usage; self.paths = paths
        self.treeParent = treeParent
    }

    /// NAME: the mapper name of a dm device, else the kernel name; under --paths, its /dev path.
    var name: String {
        guard paths else { return device.displayName }
        return device.mapperName.map { "/dev/mapper/\($0)" } ?? DeviceRow.devPath(device.name)
    }

    var kernelName: String { paths ? DeviceRow.devPath(device.name) : device.name }
    var parentName: String? {
        (treeParent ?? DeviceColumns.parentName(of: device)).map { paths ? DeviceRow.devPath($0) : $0 }
    }

    /// sysfs writes a "/" in a kernel name as "!" (cciss!c0d0 is /dev/cciss/c0d0).
    static func devPath(_ name: String) -> String {
        "/dev/" + name.split(separator: "!", omittingEmptySubsequences: false).joined(separator: "/")
    }
}

/// The columns of `carve devices`, named and typed as lsblk's: the same list gives
/// the table headers, the JSON keys (those of `lsblk -J -b`) and `--output` validation.
public enum DeviceColumns {
    public static let defaults = ["NAME", "SIZE", "TYPE", "FSTYPE", "LABEL", "UUID", "MOUNTPOINTS"]

    public static let all: [Column<DeviceRow>] =
        [
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
            text(.fsType, "filesystem type"),
            text(.fsVersion, "filesystem version"),
            text(.label, "filesystem LABEL"),
            text(.uuid, "filesystem UUID", widthHint: 36),
            text(.partUUID, "partition UUID", widthHint: 36),
            text(.partType, "partition type code or UUID", widthHint: 36),
            text(.partTypeName, "partition type name"),
            text(.partLabel, "partition LABEL"),
            text(.ptType, "partition table type"),
            text(.ptUUID, "partition table identifier (usually UUID)", widthHint: 36),
            flag("RO", "read-only device", \.readOnly),
            flag("RM", "removable device", \.removable),
            flag("ROTA", "rotational device", \.rotational),
            hardware(.model, "device identifier"),
            hardware(.serial, "disk serial number"),
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
            Column(
                "FSROOTS", help: "mounted filesystem roots",
                text: { row, _ in row.device.fsRoots.map(escapedForTable).joined(separator: "\n") },
                json: { row in .array(row.device.fsRoots.isEmpty ? [.null] : row.device.fsRoots.map { .string($0) }) },
                plain: { row, _ in row.device.fsRoots.joined(separator: "\n") }),
        ] + DeviceColumns.attributeColumns

    /// The columns `--output` names (nil: the defaults); "+COLS" adds to the defaults.
    public static func select(_ spec: String?) throws(UsageError) -> [Column<DeviceRow>] {
        try selectColumns(spec, from: all, defaults: defaults)
    }

    /// As lsblk: the sets of the letters (-f, -t, -m...) or every column (-O) replace
    /// the defaults; `--output` then replaces them too, or with "+COLS" adds to them.
    public static func select(
        _ spec: String?, sets: [String], all everyColumn: Bool
    ) throws(UsageError)
        -> [Column<DeviceRow>]
    {
        let base = everyColumn ? all.map(\.name) : sets
        guard !base.isEmpty else { return try select(spec) }
        guard let spec, spec.hasPrefix("+") else { return try selectColumns(spec, from: all, defaults: base) }
        return try selectColumns(spec, from: all, defaults: base)
    }

    /// The column `--sort` names.
    public static func column(named name: String) throws(UsageError) -> Column<DeviceRow> {
        guard let column = all.first(where: { $0.name == name.uppercased() }) else {
            throw UsageError("unknown column '\(name)' for --sort")
        }
        return column
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

    /// The fields the columns show, for the device source to read: a column named
    /// after a `DeviceField` shows that field.
    public static func fields(of columns: [Column<DeviceRow>]) -> Set<DeviceField> {
        Set(columns.compactMap { DeviceField(rawValue: $0.name) })
    }

    /// The columns that need the space of a mounted filesystem (statvfs).
    public static let spaceColumns: Set<String> = ["FSSIZE", "FSUSED", "FSAVAIL", "FSUSE%"]

    /// A field of the property table, as text, named by the field: one spelling of each name.
    static func text(_ field: DeviceField, _ help: String, widthHint: Int = 0) -> Column<DeviceRow> {
        cell(field.rawValue, help, { $0.device.properties[field] }, widthHint: widthHint)
    }

    /// A hardware identification field: whole devices that sit on nothing only, as lsblk.
    static func hardware(
        _ field: DeviceField, _ help: String, rightAligned: Bool = false, widthHint: Int = 0
    )
        -> Column<DeviceRow>
    {
        let value: @Sendable (DeviceRow) -> String? = { row in
            row.device.kind == .part || !row.device.slaves.isEmpty ? nil : row.device.properties[field]
        }
        return Column(
            field.rawValue, help: help, rightAligned: rightAligned, widthHint: widthHint,
            text: { row, _ in escapedForTable(value(row) ?? "") }, json: { .string(value($0)) },
            plain: { row, _ in value(row) ?? "" })
    }

    /// A number sysfs gives (lsblk's COLTYPE_NUM): right-aligned text, a JSON number.
    static func number(_ field: DeviceField, _ help: String, widthHint: Int) -> Column<DeviceRow> {
        Column(
            field.rawValue, help: help, rightAligned: true, widthHint: widthHint,
            text: { row, _ in row.device.properties[field] ?? "" },
            json: { row in
                guard let text = row.device.properties[field] else { return .null }
                return UInt64(text).map { .uint($0) } ?? .string(text)
            })
    }

    /// A byte count (COLTYPE_SIZE): "512B", "2G", or the number under --bytes.
    static func bytes(_ field: DeviceField, _ help: String, widthHint: Int) -> Column<DeviceRow> {
        Column(
            field.rawValue, help: help, rightAligned: true, widthHint: widthHint,
            text: { row, bytes in
                guard let text = row.device.properties[field], let value = UInt64(text) else { return "" }
                return bytes ? text : ByteSize.format(value)
            },
            json: { row in .uint(row.device.properties[field].flatMap { UInt64($0) }) })
    }

    /// A 0/1 attribute (COLTYPE_BOOL): right-aligned, a JSON boolean.
    static func boolean(_ field: DeviceField, _ help: String) -> Column<DeviceRow> {
        Column(
            field.rawValue, help: help, rightAligned: true, widthHint: 1,
            text: { row, _ in row.device.properties[field] ?? "" },
            json: { row in
                guard let text = row.device.properties[field] else { return .null }
                return .bool(text != "0")
            })
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
