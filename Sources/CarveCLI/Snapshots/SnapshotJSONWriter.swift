import CarveCore

/// The snapshot objects of `carve snapshots list --json`, written straight into bytes:
/// each column writes its own value (`Column.cells`), so the columns of
/// `SnapshotColumns` are the one definition of the keys and values, and this writer
/// prints the same text as `SnapshotColumns.snapshotJSON` (a test compares them on
/// every kind of row). Rendering a JSONValue per snapshot made ten thousand snapshots
/// cost several times what `btrfs subvolume list` takes; here only the bytes are made.
/// A row with a name that is not UTF-8 sets the writer's `replacedCarriedBytes`, and
/// the caller writes it again through the general writer, which adds `KEY_base64`.
struct SnapshotJSONWriter {
    /// Each column with its writer as written (`SnapshotColumn`).
    private let columns: [SnapshotColumn]
    /// Every member's prefix (separator, indentation, key) one after the other, and
    /// where each ends: one buffer, so a member costs no array of its own.
    private let prefixes: [UInt8]
    private let ends: [Int]
    private let closing: [UInt8]
    private let out: JSONCells

    init(columns: [Column<SnapshotRow>], level: Int, into out: ByteWriter) {
        self.columns = columns.map(SnapshotColumns.withCells)
        let layout = JSONObjectLayout(keys: columns.map(\.key), level: level)
        prefixes = layout.prefixes.flatMap { $0 }
        var end = 0
        ends = layout.prefixes.map { prefix in
            end += prefix.count
            return end
        }
        closing = layout.closing
        self.out = JSONCells(writingInto: out, level: level)
    }

    func append(_ row: SnapshotRow) {
        prefixes.withUnsafeBytes { prefixes in
            var start = 0
            for index in columns.indices {
                out.bytes.appendWide(UnsafeRawBufferPointer(rebasing: prefixes[start..<ends[index]]))
                start = ends[index]
                columns[index].cells(row, out)
            }
        }
        out.bytes.append(closing)
    }
}
