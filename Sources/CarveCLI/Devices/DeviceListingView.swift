import CarveCore

/// `carve devices` output: a tree (or with `--list` a flat list) as a table, or
/// JSON shaped exactly like `lsblk -J -b` for the same columns.
public struct DeviceListingView {
    public var forest: [DeviceTreeNode]
    public var columns: [Column<DeviceRow>]
    public var list: Bool
    public var bytes: Bool

    public init(forest: [DeviceTreeNode], columns: [Column<DeviceRow>], list: Bool, bytes: Bool) {
        self.forest = forest; self.columns = columns; self.list = list; self.bytes = bytes
    }

    public func table() -> String {
        if list { return TextTable(columns: columns, rows: DeviceTree.flattened(forest).map { DeviceRow($0) }, bytes: bytes).rendered() }
        let lines = DeviceTree.lines(forest)
        var table = TextTable(columns: columns, rows: lines.map { DeviceRow($0.device, treePrefix: $0.prefix) }, bytes: bytes)
        // A row printed on several lines (several mountpoints) keeps the tree's lines going in NAME.
        if let name = columns.firstIndex(where: { $0.name == "NAME" }) {
            for (index, line) in lines.enumerated() {
                let height = table.rows[index].map { $0.split(separator: "\n", omittingEmptySubsequences: false).count }.max() ?? 1
                guard height > 1, !line.continuation.isEmpty else { continue }
                table.rows[index][name] += String(repeating: "\n" + line.continuation, count: height - 1)
            }
        }
        return table.rendered()
    }

    /// `{"blockdevices": [...]}` with "children" arrays in tree mode, flat with `--list`.
    public func json() -> JSONValue {
        let devices = list
            ? DeviceTree.flattened(forest).map { object(for: $0, children: []) }
            : forest.map(object(for:))
        return .object([("blockdevices", .array(devices))])
    }

    private func object(for node: DeviceTreeNode) -> JSONValue {
        object(for: node.device, children: node.children.map(object(for:)))
    }

    private func object(for device: BlockDevice, children: [JSONValue]) -> JSONValue {
        let row = DeviceRow(device)
        var members = columns.map { ($0.key, $0.json(row)) }
        if !children.isEmpty { members.append(("children", .array(children))) }
        return .object(members)
    }
}
