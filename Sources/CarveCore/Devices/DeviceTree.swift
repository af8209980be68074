/// A device with what sits on it: its partitions first, then its holders (the
/// devices stacked on it, such as a dm-crypt or RAID device).
public struct DeviceTreeNode: Sendable, Hashable {
    public var device: BlockDevice
    public var children: [DeviceTreeNode]
    public init(device: BlockDevice, children: [DeviceTreeNode] = []) { self.device = device; self.children = children }
}

/// One printed line of a tree: the device and the tree drawing before its name.
public struct DeviceTreeLine: Sendable, Hashable {
    public var device: BlockDevice
    /// e.g. "├─" or "│ └─"; empty for a root.
    public var prefix: String
    /// The drawing on a second printed line of the same device (when a cell has
    /// several lines): the bars of the levels that go on below it.
    public var continuation: String = ""
    /// The kernel name of the device this line sits under in the tree (lsblk's PKNAME).
    public var parent: String? = nil
}

/// Builds the lsblk tree: roots are the devices that sit on nothing; under each
/// device come its partitions, then its holders. A device with several slaves
/// (a RAID array) appears under each of them, as in lsblk.
public enum DeviceTree {
    /// The forest of `devices`, or of the named devices only (each with what sits on it).
    public static func build(_ devices: [BlockDevice], roots names: [String]? = nil) -> [DeviceTreeNode] {
        let byName = Dictionary(devices.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var rootDevices: [BlockDevice]
        if let names {
            // Each named device is a root, even one that also sits under another named one, as in lsblk.
            var seen = Set<String>()
            rootDevices = names.filter { seen.insert($0).inserted }.compactMap { byName[$0] }
        } else {
            rootDevices = devices.filter { device in
                let onParent = device.parent.map { byName[$0] != nil } ?? false
                let onSlave = device.slaves.contains { byName[$0] != nil }
                return !onParent && !onSlave
            }
        }
        // lsblk sorts by MAJ:MIN: the roots, and the children of each device.
        rootDevices = sortedByNumber(rootDevices)
        var partitions: [String: [BlockDevice]] = [:]
        for device in devices { if let parent = device.parent { partitions[parent, default: []].append(device) } }
        func node(_ device: BlockDevice, path: Set<String>) -> DeviceTreeNode {
            // The path guard stops a malformed holder cycle from recursing forever.
            let below = sortedByNumber((partitions[device.name] ?? []) + device.holders.compactMap { byName[$0] })
            let children = below.filter { !path.contains($0.name) }.map { node($0, path: path.union([$0.name])) }
            return DeviceTreeNode(device: device, children: children)
        }
        return rootDevices.map { node($0, path: [$0.name]) }
    }

    /// The characters a tree is drawn with: libsmartcols' box-drawing ones in a UTF-8
    /// locale, its ASCII ones otherwise.
    public struct Drawing: Sendable {
        public var branch: String, last: String, vertical: String, blank: String
        public static let unicode = Drawing(branch: "├─", last: "└─", vertical: "│ ", blank: "  ")
        public static let ascii = Drawing(branch: "|-", last: "`-", vertical: "| ", blank: "  ")
    }

    /// The tree as lines with lsblk's drawing characters.
    public static func lines(_ forest: [DeviceTreeNode], drawing: Drawing = .unicode) -> [DeviceTreeLine] {
        var out: [DeviceTreeLine] = []
        let bar = String(drawing.vertical.prefix(1))
        func visit(_ node: DeviceTreeNode, indent: String, branch: String, parent: String? = nil) {
            let childIndent =
                branch.isEmpty ? indent : indent + (branch == drawing.last ? drawing.blank : drawing.vertical)
            let continuation = childIndent + (node.children.isEmpty ? "" : bar)
            out.append(
                DeviceTreeLine(
                    device: node.device, prefix: indent + branch, continuation: continuation, parent: parent))
            for (index, child) in node.children.enumerated() {
                let branch = index == node.children.count - 1 ? drawing.last : drawing.branch
                visit(child, indent: childIndent, branch: branch, parent: node.device.name)
            }
        }
        for root in forest { visit(root, indent: "", branch: "") }
        return out
    }

    /// `devices` in lsblk's order, by packed device number; stable for equal numbers.
    public static func sortedByNumber(_ devices: [BlockDevice]) -> [BlockDevice] {
        devices.enumerated().sorted { ($0.element.number.packed, $0.offset) < ($1.element.number.packed, $1.offset) }
            .map(\.element)
    }

    /// Every device of the forest once, in tree order.
    public static func flattened(_ forest: [DeviceTreeNode]) -> [BlockDevice] {
        var seen = Set<String>()
        return lines(forest).map(\.device).filter { seen.insert($0.name).inserted }
    }
}
