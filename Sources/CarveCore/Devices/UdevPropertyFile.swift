/// The udev properties a dump keeps per device (`DIR/dev/NAME`: udevadm's
/// `KEY=value` lines), read as upstream lsblk reads them with `--sysroot`: the
/// first line of any key that feeds a field wins, `_ENC` values of labels and
/// UUIDs are decoded, MODEL is ID_MODEL as written, and anything else (other
/// keys, lines without `=`, binary junk) is skipped.
public enum UdevPropertyFile {
    /// The keys, in the order lsblk tries them on each line, and the field each feeds.
    static let keys: [(key: String, field: DeviceField, decoded: Bool)] = [
        ("ID_FS_LABEL_ENC", .label, true), ("ID_FS_UUID_ENC", .uuid, true), ("ID_PART_ENTRY_NAME", .partLabel, true),
        ("ID_PART_TABLE_UUID", .ptUUID, false), ("ID_PART_TABLE_TYPE", .ptType, false),
        ("ID_FS_TYPE", .fsType, false), ("ID_FS_VERSION", .fsVersion, false),
        ("ID_PART_ENTRY_TYPE", .partType, false), ("ID_PART_ENTRY_UUID", .partUUID, false),
        ("ID_PART_ENTRY_FLAGS", .partFlags, false), ("ID_PART_ENTRY_NUMBER", .partNumber, false),
        ("ID_PART_ENTRY_SCHEME", .ptType, false), ("ID_MODEL", .model, false),
        ("ID_WWN_WITH_EXTENSION", .wwn, false), ("ID_WWN", .wwn, false), ("SCSI_IDENT_SERIAL", .serial, false),
        ("ID_SCSI_SERIAL", .serial, false), ("ID_SERIAL_SHORT", .serial, false), ("ID_SERIAL", .serial, false),
        ("ID_REVISION", .revision, false), ("MODE", .mode, false), ("OWNER", .owner, false),
        ("GROUP", .group, false),
    ]

    /// The fields such a file can give.
    public static let fields = Set(keys.map(\.field))

    /// `properties` as such a file holds them, for `carve devices --dump`: each field
    /// under the first key lsblk reads it from, `_ENC` values encoded as udev does, a
    /// partition's table type also as its entry's scheme (as udev writes both).
    public static func render(_ properties: DeviceProperties, path: String, isPartition: Bool) -> [UInt8] {
        var lines = ["DEVNAME=\(path)"]
        var written = Set<DeviceField>()
        for entry in keys where !written.contains(entry.field) {
            guard let value = properties[entry.field] else { continue }
            written.insert(entry.field)
            lines.append("\(entry.key)=\(entry.decoded ? UdevEncoding.encode(value) : UdevEncoding.oneLine(value))")
            if isPartition && entry.field == .ptType {
                lines.append("ID_PART_ENTRY_SCHEME=\(UdevEncoding.oneLine(value))")
            }
        }
        return ByteText.bytes(of: lines.joined(separator: "\n") + "\n")
    }

    /// The properties in `bytes`, the whole file.
    public static func parse<Bytes: Collection>(_ bytes: Bytes) -> DeviceProperties where Bytes.Element == UInt8 {
        var found = DeviceProperties()
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            // A C string ends at its first NUL, as lsblk's fgets buffer does.
            let text = line.prefix { $0 != 0 }
            guard let equals = text.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = ByteText.decode(text[..<equals])
            let value = text[text.index(after: equals)...]
            guard !value.isEmpty else { continue }
            for entry in keys where entry.key == key && found[entry.field] == nil {
                let decoded = ByteText.decode(value)
                found[entry.field] = entry.decoded ? UdevEncoding.decode(decoded) : decoded
                break
            }
        }
        return found
    }
}
