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
