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

    /// The subvolume ids recorded under `uuid` as `type` (`subvolume` or `receivedSubvolume`).
    static func ids(of uuid: String, type: UInt32, with search: TreeSearch) throws -> [UInt64] {
        guard let key = key(uuid) else { return [] }
        let at = TreeSearch.Key(objectid: key.objectid, type: type, offset: key.offset)
        var ids: [UInt64] = []
        _ = try search.search(tree: tree, from: at, to: at) { item in
            var offset = 0
            while offset + 8 <= item.data.count {
                ids.append(item.data.loadLE(at: offset))
                offset += 8
            }
        }
        return ids
    }
}
