import CarveCore

/// `carve devices` output: a tree (or with `--list` a flat list) as a table, lsblk's
/// `--raw` and `--pairs` lines, or JSON shaped exactly like `lsblk -J -b` for the same columns.
public struct DeviceListingView {
    public enum Format: Sendable { case table, raw, pairs, json }

    public var forest: [DeviceTreeNode]
    public var columns: [Column<DeviceRow>]
    public var format: Format
    /// A tree (lsblk's default) or, with `--list`, a flat list; `--raw` and `--pairs` are always flat.
    public var tree: Bool
    public var bytes: Bool
    public var headings = true
    /// `--paths`: /dev paths in NAME, KNAME and PKNAME.
    public var paths = false
    /// The space of each mounted filesystem, asked only when a FS* column is shown.
    public var space: (any FilesystemSpaceSource)? = nil
    /// Draw the tree with ASCII (`|-`, `` `- ``): the locale's charset is not UTF-8.
    public var ascii = false
    /// `--sort COL`: a list sorted by this column, as lsblk -x (numbers as numbers).
    public var sortColumn: Column<DeviceRow>? = nil
    /// The order lsblk meets devices in (`DeviceSource.entryOrder`), kept by `--sort` for ties.
    public var entryOrder: [String: Int] = [:]
    /// The named devices, in the order given: lsblk meets them so.
    public var named: [String] = []

    public init(forest: [DeviceTreeNode], columns: [Column<DeviceRow>], format: Format, tree: Bool, bytes: Bool) {
        self.forest = forest; self.columns = columns; self.format = format; self.tree = tree; self.bytes = bytes
    }

    public func rendered() -> String {
        switch format {
        case .json:
            // Through bytes: growing a String member by member was a fifth of a listing's own work.
            var bytes: [UInt8] = []
            json().append(to: &bytes, level: 0)
            bytes.append(UInt8(ascii: "\n"))
            return String(decoding: bytes, as: UTF8.self)
        case .raw:
            return ScriptTable.rendered(.raw, columns: columns, rows: flatRows(), bytes: bytes, headings: headings)
        case .pairs:
            return ScriptTable.rendered(.pairs, columns: columns, rows: flatRows(), bytes: bytes, headings: headings)
        case .table: return table()
        }
    }

    func table() -> String {
        // lsblk prints nothing at all, not even the header, when no device was found.
        guard !forest.isEmpty else { return "" }
        if !tree { return rendered(TextTable(columns: columns, rows: flatRows(sorted: true), bytes: bytes)) }
        let lines = DeviceTree.lines(forest, drawing: ascii ? .ascii : .unicode)
        let rows = lines.map { row($0.device, treePrefix: $0.prefix, parent: $0.parent) }
        var table = TextTable(columns: columns, rows: rows, bytes: bytes)
        // A row printed on several lines (several mountpoints) keeps the tree's lines going in NAME.
        // The cells read as strings once and set once: the table keeps them as bytes.
        if let name = columns.firstIndex(where: { $0.name == "NAME" }) {
            var cells = table.rows
            var edited = false
            for (index, line) in lines.enumerated() {
                let height =
                    cells[index].map { $0.split(separator: "\n", omittingEmptySubsequences: false).count }.max() ?? 1
                guard height > 1, !line.continuation.isEmpty else { continue }
                cells[index][name] += String(repeating: "\n" + line.continuation, count: height - 1)
                edited = true
            }
            if edited { table.rows = cells }
        }
        return rendered(table)
    }

    private func rendered(_ table: TextTable) -> String {
        var table = table
        // Outside a UTF-8 locale lsblk writes every byte that is not ASCII as \xHH.
        if ascii { table.rows = table.rows.map { $0.map(DeviceListingView.asciiEscaped) } }
        table.omitsHeader = !headings
        table.padsTrailingCells = true
        return table.rendered()
    }

    /// `text` with each byte of a non-ASCII character as `\xHH`, as libsmartcols shows
    /// it when the locale's charset cannot.
    static func asciiEscaped(_ text: String) -> String {
        guard !text.utf8.allSatisfy({ $0 < 0x80 }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCII {
                out.unicodeScalars.append(scalar)
            } else {
                for byte in ByteText.bytes(of: String(scalar)) {
                    out += "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
                }
            }
        }
        return out
    }

    /// `{"blockdevices": [...]}` with "children" arrays in tree mode, flat otherwise.
    public func json() -> JSONValue {
        let devices =
            tree
            ? forest.map { object(for: $0, parent: nil) }
            : listOrder.map { object(for: $0, children: []) }
        return .object([("blockdevices", .array(devices))])
    }

    /// Every line of the tree, a device under two parents twice, as lsblk prints them.
    private var treeLines: [DeviceTreeLine] { DeviceTree.lines(forest) }

    /// A plain `--list` (table or JSON): each device once, sorted by MAJ:MIN as a whole,
    /// as lsblk does (a loop device's partitions, 259:N, come after 7:N).
    private var listOrder: [BlockDevice] {
        guard let sortColumn else { return DeviceTree.sortedByNumber(DeviceTree.flattened(forest)) }
        return DeviceSorting.sorted(
            DeviceSorting.metOrder(forest, entryOrder: entryOrder, named: named), by: sortColumn)
    }

    /// `--raw` and `--pairs` keep the tree's order, every line of it; a plain list, `listOrder`.
    private func flatRows(sorted: Bool = false) -> [DeviceRow] {
        sorted || sortColumn != nil
            ? listOrder.map { row($0) } : treeLines.map { row($0.device, parent: $0.parent) }
    }

    private func row(_ device: BlockDevice, treePrefix: String = "", parent: String? = nil) -> DeviceRow {
        let usage = space.flatMap { space in device.spaceMountpoint.flatMap(space.usage(at:)) }
        return DeviceRow(device, treePrefix: treePrefix, usage: usage, paths: paths, treeParent: parent)
    }

    private func object(for node: DeviceTreeNode, parent: String?) -> JSONValue {
        object(
            for: node.device, children: node.children.map { object(for: $0, parent: node.device.name) },
            parent: parent)
    }

    private func object(for device: BlockDevice, children: [JSONValue], parent: String? = nil) -> JSONValue {
        let row = row(device, parent: parent)
        var members = columns.map { ($0.key, $0.json(row)) }
        if !children.isEmpty { members.append(("children", .array(children))) }
        return .object(members)
    }
}
