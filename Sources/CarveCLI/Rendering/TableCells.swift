/// A table's cells, row by row, as one run of UTF-8 bytes with where each cell ends and
/// the columns it takes: ten thousand rows are one buffer and two arrays, not ninety
/// thousand strings in ten thousand arrays, and each cell is measured once, as it is
/// added. Made whole by its initialiser and not changed after.
struct TableCells {
    let columns: Int
    let rowCount: Int
    private let bytes: ByteWriter
    /// Where each cell's bytes end.
    private let ends: [Int]
    /// The columns each cell takes; `.max`: measured again where it is used (a cell
    /// that wide, or that breaks the line).
    private let widths: [UInt16]
    /// For each row, whether a cell of it holds a line break (as lsblk's MOUNTPOINTS can).
    private let breaks: [Bool]

    /// `rows` rows of `columns` cells, `cell(row, column)` each.
    init(rows: Int, columns: Int, _ cell: (_ row: Int, _ column: Int) -> String) {
        self.columns = columns
        rowCount = rows
        let count = rows * columns
        let bytes = ByteWriter(capacity: count * 12)
        var widths: [UInt16] = []
        var breaks = [Bool](repeating: false, count: rows)
        // Filled in place, by position: appending to three arrays, each checked for room
        // and uniqueness, cost more than copying the cells.
        ends = [Int](unsafeUninitializedCapacity: count) { ends, endCount in
            widths = [UInt16](unsafeUninitializedCapacity: count) { widths, widthCount in
                for row in 0..<rows {
                    for column in 0..<columns {
                        let measure = CellMeasure(cell(row, column)) { bytes.append($0) }
                        let index = row * columns + column
                        ends[index] = bytes.count
                        widths[index] = measure.breaksLine ? .max : UInt16(clamping: measure.width)
                        if measure.breaksLine { breaks[row] = true }
                    }
                }
                widthCount = count
            }
            endCount = count
        }
        self.bytes = bytes
        self.widths = widths
        self.breaks = breaks
    }

    /// The cells of `rows`, each with one cell per column.
    init(rows: [[String]], columns: Int) {
        precondition(rows.allSatisfy { $0.count == columns }, "a table row has one cell per column")
        self.init(rows: rows.count, columns: columns) { rows[$0][$1] }
    }

    func breaksLine(row: Int) -> Bool { breaks[row] }

    func width(row: Int, column: Int) -> UInt16 { widths[row * columns + column] }

    /// The cells' bytes, lent to `body`; `range(row:column:)` finds a cell in them.
    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result { bytes.withBytes(body) }

    /// Where the cell at `row` and `column` lies in the bytes.
    func range(row: Int, column: Int) -> Range<Int> {
        let index = row * columns + column
        return (index == 0 ? 0 : ends[index - 1])..<ends[index]
    }

    func string(row: Int, column: Int) -> String {
        withBytes {
            String(decoding: UnsafeRawBufferPointer(rebasing: $0[range(row: row, column: column)]), as: UTF8.self)
        }
    }

    func row(_ row: Int) -> [String] { (0..<columns).map { string(row: row, column: $0) } }
}
