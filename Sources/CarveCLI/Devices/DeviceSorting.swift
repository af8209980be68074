import CarveCore

/// lsblk's `-x COL`: rows ordered by one column, stable, numbers by value (a size by
/// its bytes, MAJ:MIN by device number), text byte by byte, empty cells first.
enum DeviceSorting {
    static func sorted(_ devices: [BlockDevice], by column: Column<DeviceRow>) -> [BlockDevice] {
        let cells = devices.map { column.plain(DeviceRow($0), true) }
        let numeric = column.rightAligned && cells.allSatisfy { $0.isEmpty || UInt64($0) != nil }
        let keys: [Key] = zip(devices, cells).map { device, cell in
            if column.name == "MAJ:MIN" { return .number(device.number.packed) }
            if numeric { return .number(UInt64(cell) ?? 0) }
            return cell.isEmpty ? .none : .text(Array(cell.utf8))
        }
        return devices.indices.sorted { keys[$0] < keys[$1] || (keys[$0] == keys[$1] && $0 < $1) }.map { devices[$0] }
    }

    /// Every device once, in the order lsblk meets them before sorting: the named
    /// devices as given (else the roots as /sys/block lists them), each followed by
    /// its partitions then its holders, as their directories list them.
    static func metOrder(_ forest: [DeviceTreeNode], entryOrder: [String: Int], named: [String]) -> [BlockDevice] {
        func rank(_ node: DeviceTreeNode) -> Int { entryOrder[node.device.name] ?? Int.max }
        let roots = forest.enumerated().sorted { left, right in
            let l = named.firstIndex(of: left.element.device.name) ?? Int.max
            let r = named.firstIndex(of: right.element.device.name) ?? Int.max
            if l != r { return l < r }
            return (rank(left.element), left.offset) < (rank(right.element), right.offset)
        }.map(\.element)
        var seen = Set<String>()
        var out: [BlockDevice] = []
        func visit(_ node: DeviceTreeNode) {
            guard seen.insert(node.device.name).inserted else { return }
            out.append(node.device)
            let children = node.children.enumerated().sorted { left, right in
                let l = (left.element.device.kind == .part ? 0 : 1, rank(left.element), left.offset)
                let r = (right.element.device.kind == .part ? 0 : 1, rank(right.element), right.offset)
                return l < r
            }.map(\.element)
            children.forEach(visit)
        }
        roots.forEach(visit)
        return out
    }

    enum Key: Comparable {
        case none
        case number(UInt64)
        case text([UInt8])

        static func < (lhs: Key, rhs: Key) -> Bool {
            switch (lhs, rhs) {
            case (.none, .none): false
            case (.none, _): true
            case (_, .none): false
            case (.number(let a), .number(let b)): a < b
            case (.text(let a), .text(let b)): a.lexicographicallyPrecedes(b)
            case (.number, .text): true
            case (.text, .number): false
            }
        }
    }
}
