import CarveCore

/// A text table laid out as lsblk lays it out: a header, columns separated by one
/// space, numbers right-aligned, the last column not padded.
public struct TextTable {
    public var headers: [String]
    public var rightAligned: [Bool]
    /// The cells, kept as bytes (`TableCells`); the few tables that edit cells read and
    /// set them as strings here.
    public var rows: [[String]] {
        get { (0..<cells.rowCount).map(cells.row) }
        set { cells = TableCells(rows: newValue, columns: headers.count) }
    }
    private var cells: TableCells
    /// `--noheadings`: the header still sets the widths, as in lsblk, but is not printed.
    public var omitsHeader = false
    /// lsblk pads the empty cells at the end of a line (all but the last column) and
    /// honours width hints; carve's own tables end each line at its last character.
    public var padsTrailingCells = false
    public var widthHints: [Int] = []

    public init(headers: [String], rightAligned: [Bool]) {
        self.headers = headers
        self.rightAligned = rightAligned
        cells = TableCells(rows: 0, columns: headers.count) { _, _ in "" }
    }

    /// Each cell's text goes into the table's bytes as it is made: no string is kept.
    public init<Row>(columns: [Column<Row>], rows: [Row], bytes: Bool) {
        // Each column's closure called where the column holds it: mapping the columns for
        // each row copied every column, and an array of the closures alone wrapped each in
        // a thunk of its own.
        self = columns.withUnsafeBufferPointer { held in
            TextTable(heads: columns, rows: rows.count) { held[$1].text(rows[$0], bytes) }
        }
    }

    /// A table of `rows` rows under `heads`' names, alignment and width hints, each cell
    /// `cell(row, column)`.
    init<Row>(heads: [Column<Row>], rows: Int, cell: (_ row: Int, _ column: Int) -> String) {
        self.init(headers: heads.map(\.name), rightAligned: heads.map(\.rightAligned))
        cells = TableCells(rows: rows, columns: heads.count, cell)
        widthHints = heads.map(\.widthHint)
    }

    public func rendered() -> String {
        var text: [UInt8] = []
        layOut { text.append(contentsOf: $0) }
        return String(decoding: text, as: UTF8.self)
    }

    /// Writes the table to stdout as it is laid out, a chunk at a time: neither a String
    /// of it nor its whole text is held besides its cells.
    func write(to out: any OutputSink) { layOut { out.write(bytes: $0) } }

    /// The table's text as UTF-8, handed to `emit` in chunks of about 64 KiB.
    private func layOut(_ emit: (UnsafeRawBufferPointer) -> Void) {
        // Taken out of the table once: read through `self` in the loops, the table was
        // copied (each of its arrays retained and released) for every row.
        let (cells, rightAligned, pads) = (cells, rightAligned, padsTrailingCells)
        let header = TableCells(rows: TextTable.physicalLines(headers), columns: headers.count)
        var widths = Array(repeating: 0, count: headers.count)
        // Only a row with a line break in a cell (rare) is split and measured line by line:
        // splitting every cell of ten thousand rows cost more than listing them.
        for row in 0..<cells.rowCount {
            guard !cells.breaksLine(row: row) else {
                for line in TextTable.physicalLines(cells.row(row)) { TextTable.widen(&widths, to: line) }
                continue
            }
            // In place: each width set through the array was checked for a unique owner.
            widths.withUnsafeMutableBufferPointer { widths in
                for column in widths.indices {
                    let width = cells.width(row: row, column: column)
                    widths[column] = max(
                        widths[column],
                        width == .max ? displayWidth(cells.string(row: row, column: column)) : Int(width))
                }
            }
        }
        for index in widths.indices {
            let header = displayWidth(headers[index])
            let hint = padsTrailingCells && index < widthHints.count ? widthHints[index] : 0
            // libsmartcols: at least the header; else up to the hint when the header is narrower than it.
            widths[index] =
                widths[index] < header ? header : widths[index] < hint && header < hint ? hint : widths[index]
        }
        // Written as bytes into one buffer: a String grown piece by piece, with a padding
        // String per cell, cost several times the listing.
        let chunk = 1 << 16
        let out = ByteWriter(capacity: chunk + widths.reduce(0, +) + widths.count + 1)
        // The widths and alignments lent to each line: handed over as arrays, each line
        // retained and released them.
        widths.withUnsafeBufferPointer { widths in
            rightAligned.withUnsafeBufferPointer { rightAligned in
                let layout = LineLayout(widths: widths, rightAligned: rightAligned, pads: pads)
                if !omitsHeader {
                    for line in 0..<header.rowCount { TextTable.write(header, row: line, layout, to: out) }
                }
                for row in 0..<cells.rowCount {
                    if cells.breaksLine(row: row) {
                        let lines = TableCells(rows: TextTable.physicalLines(cells.row(row)), columns: cells.columns)
                        for line in 0..<lines.rowCount { TextTable.write(lines, row: line, layout, to: out) }
                    } else {
                        TextTable.write(cells, row: row, layout, to: out)
                    }
                    if out.count >= chunk { out.take(emit) }
                }
            }
        }
        if out.count > 0 { out.take(emit) }
    }

    /// How each line is laid out: the columns' widths and alignments, and lsblk's padding.
    private struct LineLayout {
        let widths: UnsafeBufferPointer<Int>
        let rightAligned: UnsafeBufferPointer<Bool>
        let pads: Bool
    }

    /// One printed line: each cell padded to its column's width, one space between;
    /// with `pads`, an empty last cell too (lsblk's layout).
    private static func write(_ cells: TableCells, row: Int, _ layout: LineLayout, to out: ByteWriter) {
        let (widths, rightAligned, pads) = (layout.widths, layout.rightAligned, layout.pads)
        let start = out.count
        cells.withBytes { bytes in
            for index in 0..<cells.columns {
                let cell = UnsafeRawBufferPointer(rebasing: bytes[cells.range(row: row, column: index)])
                let known = cells.width(row: row, column: index)
                let width = known == .max ? displayWidth(String(decoding: cell, as: UTF8.self)) : Int(known)
                let gap = widths[index] - width
                let last = index == cells.columns - 1
                if last && cell.isEmpty && pads {
                    // lsblk pads every cell but an empty last one.
                } else if rightAligned[index] {
                    TextTable.appendSpaces(gap, to: out)
                    out.append(cell)
                } else {
                    out.append(cell)
                    if !last { TextTable.appendSpaces(gap, to: out) }
                }
                if !last { out.append(byte: UInt8(ascii: " ")) }
            }
        }
        if !pads { out.dropTrailingSpaces(downTo: start) }
        out.append(byte: UInt8(ascii: "\n"))
    }
}

extension TextTable {
    /// A row whose cells hold several lines ("\n"-separated, as lsblk's MOUNTPOINTS)
    /// as several printed lines, the other cells empty on the continuation lines.
    static func physicalLines(_ row: [String]) -> [[String]] {
        let split = row.map { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        let height = split.map(\.count).max() ?? 1
        guard height > 1 else { return [row] }
        return (0..<height).map { line in split.map { line < $0.count ? $0[line] : "" } }
    }

    static func widen(_ widths: inout [Int], to line: [String]) {
        for (index, cell) in line.enumerated() { widths[index] = max(widths[index], displayWidth(cell)) }
    }

    /// `count` spaces (none when it is not positive), copied from a run of them: the
    /// generic append of a repeated element cost more than the cell it pads.
    static func appendSpaces(_ count: Int, to out: ByteWriter) {
        let spaces: StaticString = "                                                                "
        var left = count
        while left > 0 {
            let now = min(left, spaces.utf8CodeUnitCount)
            out.append(UnsafeRawBufferPointer(start: spaces.utf8Start, count: now))
            left -= now
        }
    }
}

/// Terminal columns a cell takes: one per character (tables escape control bytes first).
/// ASCII text, most cells, is counted by its bytes, without breaking it into characters
/// (in ASCII only "\r\n" is one character of two bytes: such text is counted as before).
func displayWidth(_ text: String) -> Int { CellMeasure(text).width }
