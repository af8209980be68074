/// A column of `carve snapshots list` with its JSON writer and cell text kept as
/// written, beside the generic `Column` made of them. `Column` is generic over its row,
/// so it holds each closure behind a thunk that takes the row indirectly: every cell of
/// a listing (a third of a million in ten thousand snapshots) cost a second call and
/// the retain and release of the thunk's context. The listing calls these instead, whose
/// context is empty. (Held in an array or an optional, a closure is wrapped the same
/// way: they are held here, in a struct.)
struct SnapshotColumn: Sendable {
    typealias Cells = @Sendable (SnapshotRow, JSONCells) -> Void
    typealias Text = @Sendable (SnapshotRow, _ bytes: Bool) -> String

    let column: Column<SnapshotRow>
    let cells: Cells
    /// The table's cell text, as written for the same reason.
    let text: Text

    init(
        _ name: String, key: String? = nil, help: String, rightAligned: Bool = false,
        text: @escaping Text, cells: @escaping Cells
    ) {
        column = Column(name, key: key, help: help, rightAligned: rightAligned, text: text, cells: cells)
        self.cells = cells
        self.text = text
    }

    /// A column of no snapshot table: its writer as the column holds it, or its `json`.
    init(_ column: Column<SnapshotRow>) {
        self.column = column
        cells = column.cells ?? { row, out in out.value(column.json(row)) }
        text = column.text
    }
}
