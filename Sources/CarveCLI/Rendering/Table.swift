import CarveCore

/// One column of a listing. The same list of columns drives the text table's
/// header and cells, the JSON keys and values, and `--output` validation, so
/// the three cannot drift apart.
public struct Column<Row>: Sendable {
    /// The name users pass to `--output` and see as the header, e.g. "MAJ:MIN".
    public let name: String
    /// The JSON key, e.g. "maj:min".
    public let key: String
    /// One line for `--output help` and the man page.
    public let help: String
    public let rightAligned: Bool
    /// The cell text; `bytes` is true under `--bytes`.
    public let text: @Sendable (Row, _ bytes: Bool) -> String
    public let json: @Sendable (Row) -> JSONValue
    /// The JSON value written into `JSONCells`, when the column defines it so (the
    /// snapshot columns): long listings then write it straight into bytes, and `json`
    /// is made from it.
    private(set) var cells: (@Sendable (Row, JSONCells) -> Void)?
    /// The cell before the table's escaping, for formats that escape their own way
    /// (lsblk's --raw and --pairs); `text` when the column has no such difference.
    public let plain: @Sendable (Row, _ bytes: Bool) -> String
    /// libsmartcols' absolute width hint (lsblk's SIZE is 5): the width a column takes
    /// when its widest cell is at least its header but narrower than the hint.
    public let widthHint: Int

    public init(
        _ name: String, key: String? = nil, help: String, rightAligned: Bool = false, widthHint: Int = 0,
        text: @escaping @Sendable (Row, Bool) -> String, json: @escaping @Sendable (Row) -> JSONValue,
        plain: (@Sendable (Row, Bool) -> String)? = nil
    ) {
        self.name = name; self.key = key ?? name.lowercased(); self.help = help; self.widthHint = widthHint
        self.rightAligned = rightAligned; self.text = text; self.json = json; self.plain = plain ?? text
        cells = nil
    }

    /// A column whose JSON value is written into `JSONCells` (see `cells`).
    init(
        _ name: String, key: String? = nil, help: String, rightAligned: Bool = false,
        text: @escaping @Sendable (Row, Bool) -> String, cells: @escaping @Sendable (Row, JSONCells) -> Void
    ) {
        self.init(
            name, key: key, help: help, rightAligned: rightAligned, text: text, json: JSONCells.value(of: cells))
        self.cells = cells
    }
}

/// Resolves `--output` against a column table: comma-separated names, case-insensitive,
/// and a leading `+` that adds to the defaults as lsblk does.
public func selectColumns<Row>(
    _ spec: String?, from all: [Column<Row>], defaults: [String]
) throws(UsageError) -> [Column<Row>] {
    guard var spec, !spec.isEmpty else { return defaults.compactMap { name in all.first { $0.name == name } } }
    var names: [String] = []
    if spec.hasPrefix("+") {
        names = defaults
        spec.removeFirst()
    }
    for raw in spec.split(separator: ",", omittingEmptySubsequences: false) {
        let name = String(raw).trimmingSpaces.uppercased()
        guard all.contains(where: { $0.name == name }) else {
            let known = all.map(\.name).joined(separator: ", ")
            throw UsageError("unknown column '\(raw)' for --output (known: \(known))")
        }
        names.append(name)
    }
    return names.compactMap { name in all.first { $0.name == name } }
}

/// A text table laid out as lsblk lays it out: a header, columns separated by one
/// space, numbers right-aligned, the last column not padded.
public struct TextTable {
    public var headers: [String]
    public var rightAligned: [Bool]
    public var rows: [[String]] = []
    /// `--noheadings`: the header still sets the widths, as in lsblk, but is not printed.
    public var omitsHeader = false
    /// lsblk pads the empty cells at the end of a line (all but the last column) and
    /// honours width hints; carve's own tables end each line at its last character.
    public var padsTrailingCells = false
    public var widthHints: [Int] = []

    public init(headers: [String], rightAligned: [Bool]) {
        self.headers = headers
        self.rightAligned = rightAligned
    }

    public init<Row>(columns: [Column<Row>], rows: [Row], bytes: Bool) {
        self.init(headers: columns.map(\.name), rightAligned: columns.map(\.rightAligned))
        // The closures taken out once: mapping the columns for each row copied every column.
        let texts = columns.map(\.text)
        self.rows = rows.map { row in texts.map { $0(row, bytes) } }
        widthHints = columns.map(\.widthHint)
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
        let headerLines = TextTable.physicalLines(headers)
        var widths = Array(repeating: 0, count: headers.count)
        // Every cell measured once, here, its width kept in 16 bits (`.max`: measured again
        // as it is laid out, a cell that wide or that breaks the line; the table's peak memory
        // stays). Only a row with a line break in a cell (rare) is split and measured line by
        // line: splitting every cell of ten thousand rows cost more than listing them.
        var cellWidths: [UInt16] = []
        cellWidths.reserveCapacity(rows.count * headers.count)
        // Rows and cells in place: iterated by value, each row and cell was retained and released.
        rows.withUnsafeBufferPointer { rows in
            for row in rows {
                let start = cellWidths.count
                let breaksLine = row.withUnsafeBufferPointer { cells in
                    var breaksLine = false
                    for cell in cells {
                        let measure = CellMeasure(cell)
                        cellWidths.append(measure.breaksLine ? .max : UInt16(clamping: measure.width))
                        breaksLine = breaksLine || measure.breaksLine
                    }
                    guard !breaksLine else { return true }
                    for index in cells.indices {
                        let width = cellWidths[start + index]
                        widths[index] = max(widths[index], width == .max ? displayWidth(cells[index]) : Int(width))
                    }
                    return false
                }
                if breaksLine { for line in TextTable.physicalLines(row) { TextTable.widen(&widths, to: line) } }
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
        // String per cell, cost several times the listing. Rows and cells are read in
        // place (through their buffers), not retained and released one by one.
        let chunk = 1 << 16
        let out = ByteWriter(capacity: chunk + widths.reduce(0, +) + widths.count + 1)
        if !omitsHeader {
            for line in headerLines { line.withUnsafeBufferPointer { write($0, widths: widths, to: out) } }
        }
        var start = 0
        rows.withUnsafeBufferPointer { rows in
            for row in rows {
                row.withUnsafeBufferPointer { cells in
                    let measured = cellWidths[start..<start + cells.count]
                    start += cells.count
                    if measured.contains(.max) && TextTable.breaksLine(row) {
                        for line in TextTable.physicalLines(row) {
                            line.withUnsafeBufferPointer { write($0, widths: widths, to: out) }
                        }
                    } else {
                        write(cells, widths: widths, measured: measured, to: out)
                    }
                }
                if out.count >= chunk { out.take(emit) }
            }
        }
        if out.count > 0 { out.take(emit) }
    }

    /// One printed line: each cell padded to its column's width, one space between.
    private func write(
        _ line: UnsafeBufferPointer<String>, widths: [Int], measured: ArraySlice<UInt16>? = nil, to out: ByteWriter
    ) {
        let start = out.count
        for index in line.indices {
            let known = measured.map { Int($0[$0.startIndex + index]) } ?? Int(UInt16.max)
            let gap = widths[index] - (known == Int(UInt16.max) ? displayWidth(line[index]) : known)
            let last = index == line.count - 1
            if last && line[index].isEmpty && padsTrailingCells {
                // lsblk pads every cell but an empty last one.
            } else if rightAligned[index] {
                TextTable.appendSpaces(gap, to: out)
                TextTable.append(line[index], to: out)
            } else {
                TextTable.append(line[index], to: out)
                if !last { TextTable.appendSpaces(gap, to: out) }
            }
            if !last { out.append(byte: UInt8(ascii: " ")) }
        }
        if !padsTrailingCells { out.dropTrailingSpaces(downTo: start) }
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

    /// True when a cell of `row` holds a line break.
    static func breaksLine(_ row: [String]) -> Bool { row.contains { CellMeasure($0).breaksLine } }

    /// The cell's own bytes lent, not a copy of the string made contiguous.
    static func append(_ cell: String, to out: ByteWriter) {
        if cell.utf8.withContiguousStorageIfAvailable({ out.append(UnsafeRawBufferPointer($0)) }) == nil {
            out.append(Array(cell.utf8))
        }
    }
}

/// Terminal columns a cell takes: one per character (tables escape control bytes first).
/// ASCII text, most cells, is counted by its bytes, without breaking it into characters
/// (in ASCII only "\r\n" is one character of two bytes: such text is counted as before).
func displayWidth(_ text: String) -> Int { CellMeasure(text).width }
