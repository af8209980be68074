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

    /// The key words of a UUID in its text form; nil when it is not one. The form carve
    /// prints is read as `SubvolumeUUID` reads it; any other (upper case, no dashes)
    /// digit by digit.
    static func key(_ uuid: String) -> (objectid: UInt64, offset: UInt64)? {
        if let words = SubvolumeUUID(uuid).words { return words }
        var text = uuid
        return text.withUTF8 { bytes -> (UInt64, UInt64)? in
            var words: (UInt64, UInt64) = (0, 0)
            var digits = 0
            for character in bytes where character != UInt8(ascii: "-") {
                guard digits < 32, let value = hexValue(character) else { return nil }
                // Byte i of the UUID is digits 2i and 2i+1; word w holds bytes 8w...8w+7, little-endian.
                let shift = UInt64(digits & 15) / 2 * 8 + (digits & 1 == 0 ? 4 : 0)
                if digits < 16 { words.0 |= UInt64(value) << shift } else { words.1 |= UInt64(value) << shift }
                digits += 1
            }
            return digits == 32 ? words : nil
        }
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

    /// The key of `uuid` as `type`: its words as they are, when it has them.
    static func searchKey(_ uuid: SubvolumeUUID, type: UInt32) -> TreeSearch.Key? {
        guard let (objectid, offset) = uuid.words else { return searchKey(uuid.text, type: type) }
        return TreeSearch.Key(objectid: objectid, type: type, offset: offset)
    }

    /// The subvolume ids recorded under any of `keys`. A search per key costs a call
    /// each, which for thousands of listed snapshots is thousands of calls; reading the
    /// tree in key order takes a call per few thousand items. So the tree is read from
    /// the first key on while that has taken fewer calls than the keys still ahead, and
    /// those left (a large tree, few keys) are searched one by one: at most about twice
    /// the cheaper of the two. `sorted`: the keys in order, each once; the items come in
    /// key order too, so one walk along both finds those that match.
    static func ids(under sorted: [TreeSearch.Key], with search: TreeSearch) throws -> Set<UInt64> {
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
        var wanted = SortedKeyWalk(sorted)
        while let start = next, calls < ahead.count {
            next = try search.search(tree: tree, from: start, to: last) { item in
                if wanted.contains(TreeSearch.Key(objectid: item.objectid, type: item.type, offset: item.offset)) {
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

/// Keys in order, asked about keys that come in order too (a tree search's items): one
/// walk along both answers each, with no table of the keys made.
struct SortedKeyWalk {
    private let keys: [TreeSearch.Key]
    private var next = 0

    init(_ sorted: [TreeSearch.Key]) { keys = sorted }

    /// Whether `key` is one of the keys; each key asked must not come before the last one asked.
    mutating func contains(_ key: TreeSearch.Key) -> Bool {
        while next < keys.count && keys[next] < key { next += 1 }
        return next < keys.count && keys[next] == key
    }
}
