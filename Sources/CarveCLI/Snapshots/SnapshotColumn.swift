/// A column of `carve snapshots list` with its JSON writer kept as written, beside the
/// generic `Column` made of it. `Column` is generic over its row, so it holds the writer
/// behind a thunk that takes the row indirectly, and calling it retained and released
/// the thunk's context: two atomic operations for each of the third of a million cells
/// of ten thousand snapshots, a seventh of the listing's time. `SnapshotJSONWriter`
/// calls the writer as written, whose context is empty. (Held in an array or an
/// optional, a closure is wrapped the same way: it is held here, in a struct.)
struct SnapshotColumn: Sendable {
    typealias Cells = @Sendable (SnapshotRow, JSONCells) -> Void

    let column: Column<SnapshotRow>
    let cells: Cells

    init(
        _ name: String, key: String? = nil, help: String, rightAligned: Bool = false,
        text: @escaping @Sendable (SnapshotRow, Bool) -> String, cells: @escaping Cells
    ) {
        column = Column(name, key: key, help: help, rightAligned: rightAligned, text: text, cells: cells)
        self.cells = cells
    }

    /// A column of no snapshot table: its writer as the column holds it, or its `json`.
    init(_ column: Column<SnapshotRow>) {
        self.column = column
        cells = column.cells ?? { row, out in out.value(column.json(row)) }
    }
}
