/// The data extents only a set of subvolumes references (exactly what
/// `ExtentMap.reclaim(deleting:)` counts, through the same loop), and the file each
/// belongs to once the set's trees have been read: the accounting of
/// `carve snapshots pinned`, whose rows so add up to the set's reclaim by construction.
///
/// Every extent is counted once, for one file: among the files that reference it in
/// its first holder (the member of the set that comes first in the map's order, the
/// oldest), the one with the lowest inode number. A reflinked copy inside the set so
/// adds nothing to the copy's row: the original carries the bytes. A reader needs to
/// look for an extent only in its first holder, which holds every reference the rule
/// weighs.
public struct PinnedExtents: Sendable {
    /// The pinned extents with their holders, as indices into `subvolumeIDs`.
    private let table: ExtentTable
    /// The map's numbering of subvolumes.
    private let subvolumeIDs: [UInt64]
    /// Per extent: the inode it is attributed to, 0 while none was found (inodes start at 256).
    private var owners: [UInt64]
    /// The set's members the map knows, ascending.
    private let members: [UInt64]
    /// On-disk bytes of every pinned extent: the set's exact data reclaim.
    public let bytes: UInt64

    public init(map: ExtentMap, deleting ids: some Sequence<UInt64>) {
        var keys: [ExtentKey] = []
        var sets: [SubvolumeSet] = []
        var total: UInt64 = 0
        map.forEachExtent(onlyIn: ids) { key, set in
            keys.append(key); sets.append(set)
            total += key.diskBytes
        }
        bytes = total
        subvolumeIDs = map.subvolumeIDs
        let wanted = Set(ids)
        members = map.subvolumeIDs.filter { wanted.contains($0) }
        owners = [UInt64](repeating: 0, count: keys.count)
        table = ExtentTable(keys: keys, sets: sets)
    }

    public var count: Int { table.count }
    public var isEmpty: Bool { table.count == 0 }

    /// The members of the set that hold some extent first, in the map's order: the trees to read.
    public var firstHolders: [UInt64] {
        Set(table.sets.map(\.lower)).sorted().map { subvolumeIDs[Int($0)] }
    }

    /// The positions of the extents each member holds first, by member.
    public var positionsByFirstHolder: [UInt64: [Int]] {
        var result: [UInt64: [Int]] = [:]
        for index in table.sets.indices {
            result[subvolumeIDs[Int(table.sets[index].lower)], default: []].append(index)
        }
        return result
    }

    /// The extent at `position`.
    public func key(at position: Int) -> ExtentKey { table.keys[position] }

    /// The position of `key` among the pinned extents when `tree` is its first holder;
    /// nil for any other extent, or a reference from another tree (which the rule ignores).
    public func position(of key: ExtentKey, firstHeldBy tree: UInt64) -> Int? {
        guard let index = table.index(of: key), subvolumeIDs[Int(table.sets[index].lower)] == tree else { return nil }
        return index
    }

    /// Attributes the extent at `position` to `inode`, unless a lower inode has it.
    public mutating func attribute(_ position: Int, to inode: UInt64) {
        if owners[position] == 0 || inode < owners[position] { owners[position] = inode }
    }

    /// The first holders of the extents no reference was found for yet, in the map's order.
    public var unattributedTrees: [UInt64] {
        var trees = Set<UInt32>()
        for index in owners.indices where owners[index] == 0 { trees.insert(table.sets[index].lower) }
        return trees.sorted().map { subvolumeIDs[Int($0)] }
    }

    /// Bytes of the extents no reference was found for (a tree gone while it was read).
    public var unattributedBytes: UInt64 {
        var total: UInt64 = 0
        for index in owners.indices where owners[index] == 0 { total += table.keys[index].diskBytes }
        return total
    }

    /// The files the extents were attributed to, one per inode of a lineage (`lineages`:
    /// a subvolume id's lineage, as `lineages(of:)` gives), unnamed and in no order: their
    /// bytes, the oldest and newest member of their lineage holding them, and as the place
    /// to name them first the newest member of their lineage (the file's newest name in
    /// the set, when it still has the inode).
    public func files(lineages: [UInt64: SubvolumeUUID]) -> [PinnedFile] {
        let lineageOf = subvolumeIDs.map { lineages[$0] ?? "id \($0)" }
        struct Owner: Hashable {
            var lineage: SubvolumeUUID
            var inode: UInt64
        }
        struct Tally {
            var bytes: UInt64 = 0
            var extents = 0
            var first = UInt32.max
            var last: UInt32 = 0
        }
        var tallies: [Owner: Tally] = [:]
        for index in owners.indices where owners[index] != 0 {
            let set = table.sets[index]
            let lineage = lineageOf[Int(set.lower)]
            var last = set.lower
            set.forEachRun { lower, upper in
                for member in lower...upper where member > last && lineageOf[Int(member)] == lineage { last = member }
            }
            let owner = Owner(lineage: lineage, inode: owners[index])
            var tally = tallies[owner] ?? Tally()
            tally.bytes += table.keys[index].diskBytes
            tally.extents += 1
            tally.first = min(tally.first, set.lower)
            tally.last = max(tally.last, last)
            tallies[owner] = tally
        }
        var newest: [SubvolumeUUID: UInt64] = [:]
        for member in members { newest[lineages[member] ?? "id \(member)"] = member }
        return tallies.map { owner, tally in
            PinnedFile(
                inode: owner.inode, bytes: tally.bytes, extents: tally.extents,
                first: subvolumeIDs[Int(tally.first)], last: subvolumeIDs[Int(tally.last)],
                namedIn: newest[owner.lineage])
        }
    }

    /// Per subvolume id, the lineage its inode numbers belong to: the UUID reached by
    /// following parent UUIDs as far as the listing goes (a snapshot numbers its files as
    /// its source does, and so does a snapshot of that snapshot).
    public static func lineages(of subvolumes: [Volume]) -> [UInt64: SubvolumeUUID] {
        var byUUID: [SubvolumeUUID: Int] = [:]
        for index in subvolumes.indices { byUUID[subvolumes[index].uuid] = index }
        var result: [UInt64: SubvolumeUUID] = [:]
        for subvolume in subvolumes {
            var lineage = subvolume.parentUUID ?? subvolume.uuid
            // Bounded: a UUID chain that loops (a damaged tree) stops somewhere.
            for _ in 0..<subvolumes.count {
                guard let index = byUUID[lineage], let parent = subvolumes[index].parentUUID else { break }
                lineage = parent
            }
            result[subvolume.id] = lineage
        }
        return result
    }
}
