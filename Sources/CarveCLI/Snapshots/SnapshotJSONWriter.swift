import CarveCore

/// The snapshot objects of `carve snapshots list --json`, written straight into bytes
/// from each column's `json` value: the columns of `SnapshotColumns` are the one
/// definition of the keys and values, and this writer prints the same text as
/// `SnapshotColumns.snapshotJSON` (a test compares them on every kind of row).
/// Rendering a whole JSONValue object per snapshot made ten thousand snapshots cost
/// several times what `btrfs subvolume list` takes; here only the values are built.
/// A row with a name that is not UTF-8 sets the writer's `replacedCarriedBytes`, and
/// the caller writes it again through the general writer, which adds `KEY_base64`.
struct SnapshotJSONWriter {
    private let values: [@Sendable (SnapshotRow) -> JSONValue]
    private let level: Int
    private let layout: JSONObjectLayout

    init(columns: [Column<SnapshotRow>], level: Int) {
        values = columns.map(\.json)
        self.level = level
        layout = JSONObjectLayout(keys: columns.map(\.key), level: level)
    }

    func append(_ row: SnapshotRow, to out: ByteWriter) {
        for index in values.indices {
            out.append(layout.prefixes[index])
            write(values[index](row), to: out)
        }
        out.append(layout.closing)
    }

    private func write(_ value: JSONValue, to out: ByteWriter) {
        switch value {
        case .null: out.append("null")
        case .bool(let value): out.append(value ? "true" : "false")
        case .uint(let value): out.appendDecimal(value)
        case .int(let value):
            if value < 0 { out.append(byte: UInt8(ascii: "-")) }
            out.appendDecimal(value.magnitude)
        case .string(let value): out.appendQuoted(value)
        case .array(let items) where items.isEmpty: out.append("[]")
        case .double, .array, .object:
            // Lists are rare and short: the general writer lays them out.
            if value.carriesBytes { out.replacedCarriedBytes = true }
            var bytes: [UInt8] = []
            value.append(to: &bytes, level: level + 1)
            out.append(bytes)
        }
    }
}
