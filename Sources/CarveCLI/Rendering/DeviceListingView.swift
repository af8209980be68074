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
        let rows = list
            ? DeviceTree.flattened(forest).map { DeviceRow($0) }
            : DeviceTree.lines(forest).map { DeviceRow($0.device, treePrefix: $0.prefix) }
        return TextTable(columns: columns, rows: rows, bytes: bytes).rendered()
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
