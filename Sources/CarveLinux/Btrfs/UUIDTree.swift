import CBtrfsUtil
import CarveCore

/// btrfs's UUID tree (tree 9): the subvolume ids under each UUID, as the subvolume's own
/// UUID (BTRFS_UUID_KEY_SUBVOL) and as its received UUID (BTRFS_UUID_KEY_RECEIVED_SUBVOL).
/// A key is the UUID's 16 bytes as two little-endian words; an item is a list of
/// little-endian subvolume ids. One search answers "which subvolumes were received from
/// this snapshot" without reading every root item of the filesystem.
enum UUIDTree {
    static let tree = UInt64(BTRFS_UUID_TREE_OBJECTID)
    static let subvolume = UInt32(BTRFS_UUID_KEY_SUBVOL)
    static let receivedSubvolume = UInt32(BTRFS_UUID_KEY_RECEIVED_SUBVOL)

    /// The key words of a UUID in its text form; nil when it is not one.
    static func key(_ uuid: String) -> (objectid: UInt64, offset: UInt64)? {
        let digits = uuid.utf8.filter { $0 != UInt8(ascii: "-") }
        guard digits.count == 32 else { return nil }
        var bytes: [UInt8] = []
        var index = 0
        while index < 32 {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        func word(_ from: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[from + $1]) << (8 * $1) } }
        return (word(0), word(8))
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The key of `uuid` as `type`; nil when `uuid` is not one.
    static func searchKey(_ uuid: String, type: UInt32) -> TreeSearch.Key? {
        key(uuid).map { TreeSearch.Key(objectid: $0.objectid, type: type, offset: $0.offset) }
    }

    /// The subvolume ids recorded under any of `keys`. A search per key costs a call
    /// each, which for thousands of listed snapshots is thousands of calls; reading the
    /// tree in key order takes a call per few thousand items. So the tree is read from
    /// the first key on while that has taken fewer calls than the keys still ahead, and
    /// those left (a large tree, few keys) are searched one by one: at most about twice
    /// the cheaper of the two.
    static func ids(under keys: Set<TreeSearch.Key>, with search: TreeSearch) throws -> Set<UInt64> {
        let sorted = keys.sorted()
        guard let last = sorted.last else { return [] }
        var ids = Set<UInt64>()
        func collect(_ item: TreeSearch.Item) {
            var offset = 0
            while offset + 8 <= item.data.count {
                ids.insert(item.data.loadLE(at: offset))
                offset += 8
            }
        }
        var ahead = sorted[...]
        var next: TreeSearch.Key? = sorted.first
        var calls = 0
        while let start = next, calls < ahead.count {
            next = try search.search(tree: tree, from: start, to: last) { item in
                if keys.contains(TreeSearch.Key(objectid: item.objectid, type: item.type, offset: item.offset)) {
                    collect(item)
                }
            }
            calls += 1
            ahead = next.map { resume in ahead.drop { $0 < resume } } ?? []
        }
        for key in ahead {
            _ = try search.search(tree: tree, from: key, to: key) { collect($0) }
        }
        return ids
    }
}
