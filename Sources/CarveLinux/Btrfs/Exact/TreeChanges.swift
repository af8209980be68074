import CBtrfsUtil
import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// Reads a tree only where it changed since a state of it was kept (`WritableTreeState`),
/// or of the writable tree a newer snapshot was taken of: the records that changed.
///
/// A tree search whose minimum transaction is `threshold` returns every leaf written in
/// that transaction or later, whole, but cannot show where those leaves begin and end,
/// nor an item removed from one; so what changed is found by inode:
/// - btrfs rewrites an inode's item whenever its extents change (a write, truncate, hole
///   punched, reflink, deduplication: btrfs_update_inode stamps the transaction in its
///   `transid`). An inode item returned with a transid at or past `threshold` is read
///   again whole, by a search bounded to that inode's keys.
/// - Every other returned item lies in a leaf that changed for another inode's sake (or
///   was moved by balance): its extents must be among those the state holds, or the
///   inode is read again.
/// - An inode that is gone had its last name removed, which changed its directory: each
///   changed directory's DIR_ITEMs are read, and each inode the state held in it that it
///   no longer names is read again (gone, moved, or its name was removed); a directory
///   found gone makes the inodes it held suspects too. Inodes left with no name (open
///   when unlinked) and special objects above the last inode are read every run.
/// The state must come from a read that ended before the tree's changes began (the
/// caller checks transactions), and the tree must not be in an open transaction that
/// changed it (`LiveTrees`): an inode update still held in memory is not in its leaves.
struct TreeChanges {
    typealias Key = TreeSearch.Key
    let tree: UInt64
    /// A search for each worker (`TreeChanges+Workers`); the first reads alone.
    let searches: [TreeSearch]
    let nodeSize: UInt64
    /// The fewest records a state has, and inodes a step reads again, for the workers to
    /// share them (tests share the smallest).
    let sharing: (records: Int, reads: Int)

    init(tree: UInt64, searches: [TreeSearch], nodeSize: UInt64, sharing: (records: Int, reads: Int) = (4096, 64)) {
        precondition(!searches.isEmpty, "a search to read with")
        self.tree = tree; self.searches = searches; self.nodeSize = nodeSize; self.sharing = sharing
    }

    init(tree: UInt64, search: TreeSearch, nodeSize: UInt64) {
        self.init(tree: tree, searches: [search], nodeSize: nodeSize)
    }

    var search: TreeSearch { searches[0] }

    /// What changed: ascending by inode, a new record or nil for one that is gone.
    struct Result {
        var changes: [(inode: UInt64, record: InodeRecord?)] = []
        /// Inodes read again one by one, and items and bytes the searches returned.
        var reread = 0
        var items = 0
        var bytesRead: UInt64 = 0
        var malformed = 0
        /// So much changed that the tree was read whole.
        var readWhole = false
        /// The base's records, checked, when they had to be walked.
        var checkedBase: InodeRecords?
    }

    /// More inodes to read again than this share of the state's: the tree is read whole.
    static let wholeReadShare = 8

    /// The tree's changes since `base` (records of this tree's lineage) as of `threshold`.
    /// Throws `StateUnusable` when `base`'s records do not hold what they say.
    func read(base: WritableTreeState, threshold: UInt64) throws -> Result {
        let (bytesBefore, itemsBefore) = (bytesRead, itemsRead)
        var result = Result()
        let records = CheckedOnce(base.records, tree: tree)
        var changed = Set(base.readEachRun)
        var directories = Set<UInt64>()
        try changedSince(
            threshold, in: ranges(sharing: base.records), records: records, changed: &changed,
            directories: &directories)
        if !changed.isEmpty {
            let base = try records.get()
            if changed.count > max(64, base.count / Self.wholeReadShare) {
                result.changes = try wholeTree(against: base, malformed: &result.malformed)
                result.readWhole = true
            } else {
                result.changes = try reread(changed, directories: directories, base: base, result: &result)
            }
        }
        result.checkedBase = records.ifChecked
        result.bytesRead = bytesRead - bytesBefore
        result.items = itemsRead - itemsBefore
        return result
    }

    private var bytesRead: UInt64 { searches.reduce(0) { $0 + $1.bytesRead } }
    private var itemsRead: Int { searches.reduce(0) { $0 + $1.items } }

    /// The inodes whose items were rewritten since `threshold`, and the directories among
    /// them: the ranges of inodes taken in order by whichever worker is free.
    private func changedSince(
        _ threshold: UInt64, in ranges: [ClosedRange<UInt64>], records: CheckedOnce, changed: inout Set<UInt64>,
        directories: inout Set<UInt64>
    ) throws {
        let workers = min(searches.count, ranges.count)
        let finders = (0..<workers).map { _ in FinderPart(ChangeFinder(threshold: threshold, changed: changed)) }
        let taken = TakeNext(ranges.count)
        Threads.concurrentPerform(iterations: workers) { worker in
            let (part, search) = (finders[worker], searches[worker])
            search.minimumTransaction = threshold
            defer { search.minimumTransaction = 0 }
            do {
                while let range = taken.take().map({ ranges[$0] }) {
                    var next: Key? = Key(objectid: range.lowerBound, type: 0, offset: 0)
                    let end = Key(objectid: range.upperBound, type: Key.last.type, offset: Key.last.offset)
                    while let from = next {
                        next = try search.search(tree: tree, from: from, to: end) {
                            try part.finder.take($0, records: records.get)
                        }
                    }
                    try part.finder.endRange(records: records.get)
                }
            } catch {
                part.error = error
            }
        }
        if let error = finders.lazy.compactMap(\.error).first { throw error }
        changed = finders.reduce(into: Set()) { $0.formUnion($1.finder.changed) }
        directories = finders.reduce(into: Set()) { $0.formUnion($1.finder.directories) }
    }

    /// One worker's finder, kept apart until all are done.
    private final class FinderPart: @unchecked Sendable {
        var finder: ChangeFinder
        var error: (any Error)?
        init(_ finder: ChangeFinder) { self.finder = finder }
    }

    /// The items of the leaves a search since a transaction returned, taken one object at a
    /// time. A struct, not a closure and a local function over shared variables: those
    /// were boxed, and each use checked for exclusive access, a tenth of a listing that read
    /// 1% of a million files again.
    private struct ChangeFinder {
        let threshold: UInt64
        var changed: Set<UInt64>
        var directories = Set<UInt64>()
        var cursor: InodeRecords.Cursor?
        var group = Group(inode: 0)
        var held: [ExtentKey] = []

        init(threshold: UInt64, changed: Set<UInt64>) {
            self.threshold = threshold; self.changed = changed
        }

        @_optimize(speed)
        mutating func take(_ item: TreeSearch.Item, records: () throws -> InodeRecords) throws {
            if item.objectid != group.inode {
                try settle(records: records)
                group.inode = item.objectid; group.updated = false; group.inline = false
            }
            switch item.type {
            case BtrfsKey.inodeItem where item.data.count >= Int(carve_inode_item_size.rawValue):
                let transid: UInt64 = item.data.loadLE(at: Int(carve_inode_item_transid.rawValue))
                guard transid >= threshold else { return }
                group.updated = true
                changed.insert(item.objectid)
                let mode = UInt32(
                    littleEndian: item.data.loadUnaligned(
                        fromByteOffset: Int(carve_inode_item_mode.rawValue), as: UInt32.self))
                if mode & UInt32(S_IFMT) == UInt32(S_IFDIR) { directories.insert(item.objectid) }
            case BtrfsKey.fileExtent:
                switch ExtentScanner.FileExtent(item.data) {
                case .onDisk(let bytenr, let bytes):
                    if bytenr != 0 { group.references.append(ExtentKey(diskBytenr: bytenr, diskBytes: bytes)) }
                case .inline: group.inline = true
                case .malformed: group.updated = true; changed.insert(item.objectid)
                }
            default:
                break
            }
        }

        /// Ends a range: the next one this finder takes does not follow on from it.
        mutating func endRange(records: () throws -> InodeRecords) throws {
            try settle(records: records)
            group.inode = 0
        }

        /// Ends the object taken so far: changed unless its inode item is older than the
        /// threshold and the state holds every extent its items name.
        @_optimize(speed)
        mutating func settle(records: () throws -> InodeRecords) throws {
            defer { group.references.removeAll(keepingCapacity: true) }
            guard group.inode != 0, !group.updated else { return }
            if cursor == nil { cursor = InodeRecords.Cursor(try records()) }
            // Special objects carry no inode item to tell: any change reads them again.
            guard group.inode <= InodeRecord.lastInode, let entry = cursor!.peek(atLeast: group.inode),
                entry.inode == group.inode
            else {
                changed.insert(group.inode)
                return
            }
            let hadInline = entry.references(into: &held)
            if (group.inline && !hadInline) || !TreeChanges.contains(held, group.references) {
                changed.insert(group.inode)
            }
        }
    }

    /// One object's items in the leaves the search returned.
    private struct Group {
        var inode: UInt64
        var updated = false
        var inline = false
        var references: [ExtentKey] = []
    }

    /// Whether every reference of `part` is among `whole`, counted (a file may point
    /// into one extent more than once).
    static func contains(_ whole: [ExtentKey], _ part: [ExtentKey]) -> Bool {
        guard !part.isEmpty else { return true }
        guard part.count <= whole.count else { return false }
        if part.count == 1 { return whole.contains(part[0]) }
        let wholeSorted = whole.sorted()
        var index = 0
        for key in part.sorted() {
            while index < wholeSorted.count, wholeSorted[index] < key { index += 1 }
            guard index < wholeSorted.count, wholeSorted[index] == key else { return false }
            index += 1
        }
        return true
    }

    /// One inode's record, read whole, and the inodes its DIR_ITEMs name; nil when gone.
    /// For an inode known as a `directory` (here or in the state), its DIR_INDEX items are
    /// left out: they name the entries its DIR_ITEMs name, and their leaf bytes follow
    /// from those. They were half of what reading the changed directories again copied.
    func readInode(
        _ inode: UInt64, directory: Bool, malformed: inout Int, with search: TreeSearch? = nil
    ) throws -> (InodeRecord?, [UInt64]) {
        let search = search ?? self.search
        var builder = InodeRecordBuilder(collectsChildren: true)
        if directory {
            builder.countsIndexFromItems = true
            try read(inode, types: 0...(TreeReader.dirIndexType - 1), with: search, into: &builder)
            try read(inode, types: (TreeReader.dirIndexType + 1)...255, with: search, into: &builder)
        } else {
            try read(inode, types: 0...255, with: search, into: &builder)
        }
        malformed += builder.malformed
        return (builder.finish(), builder.children)
    }

    /// The items of `inode` of the key types `types`, added to `builder`. The builder
    /// comes in as a parameter: captured by a nested function, each item's addition was
    /// checked for exclusive access at run time.
    private func read(
        _ inode: UInt64, types: ClosedRange<UInt32>, with search: TreeSearch, into builder: inout InodeRecordBuilder
    ) throws {
        let room = TreeSearch.roomForAnyItem(nodeSize: nodeSize)
        var next: Key? = Key(objectid: inode, type: types.lowerBound, offset: 0)
        let end = Key(objectid: inode, type: types.upperBound, offset: .max)
        while let from = next, from <= end {
            next = try search.search(tree: tree, from: from, to: end, doneWhenRoomFor: room) { item in
                builder.addOfOneObject(item)
            }
        }
    }

    /// Every record of the tree, read whole, as changes against `base`.
    private func wholeTree(
        against base: InodeRecords, malformed: inout Int
    ) throws -> [(
        inode: UInt64, record: InodeRecord?
    )] {
        var builder = InodeRecordBuilder()
        var records: [InodeRecord] = []
        try search.forEachItem(tree: tree, firstObjectID: BtrfsKey.firstFreeObjectID) { item in
            if let record = builder.add(item) { records.append(record) }
        }
        if let last = builder.finish() { records.append(last) }
        malformed += builder.malformed
        var changes: [(inode: UInt64, record: InodeRecord?)] = []
        var index = 0
        base.forEach { entry in
            while index < records.count, records[index].inode < entry.inode {
                changes.append((records[index].inode, records[index])); index += 1
            }
            if index < records.count, records[index].inode == entry.inode {
                changes.append((entry.inode, records[index])); index += 1
            } else {
                changes.append((entry.inode, nil))
            }
        }
        changes += records[index...].map { (inode: $0.inode, record: $0) }
        return changes
    }
}

/// A kept state whose records do not hold what they say (a forged cache, or a bug): the
/// scan is run again without it.
struct StateUnusable: Error, CustomStringConvertible {
    var tree: UInt64
    var description: String { "the kept state of subvolume \(tree) is damaged" }
}
