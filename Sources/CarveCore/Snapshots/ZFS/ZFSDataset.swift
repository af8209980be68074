/// One ZFS dataset (filesystem or volume) or snapshot, with the properties carve reads,
/// as `zfs list -H -p -o …` (OpenZFS) or `zfs get -H -p -o name,property,value …`
/// (zfs-fuse, whose `list` has no `-p`) report them.
public struct ZFSDataset: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case filesystem, volume, snapshot
    }

    /// The full name: `tank/home` or `tank/home@daily`.
    public var name: String
    public var kind: Kind
    /// ZFS's own 64-bit identity; nil where the dialect has no `guid` property (zfs-fuse).
    public var guid: UInt64?
    public var creation: Date
    /// A snapshot's `used`: the bytes only it holds, what destroying it alone frees.
    public var used: UInt64?
    public var referenced: UInt64?
    /// A dataset's `available` (a snapshot has none).
    public var available: UInt64?
    /// A snapshot's user holds (`userrefs`).
    public var userrefs: Int = 0
    /// A clone's origin snapshot.
    public var origin: String?
    /// A snapshot's clones; nil where the dialect has no `clones` property (zfs-fuse: the
    /// clones are then found from the datasets' `origin`).
    public var clones: [String]?
    /// `zfs destroy -d` was asked: it goes when its last hold or clone does.
    public var deferDestroy = false
    /// znapzend's `org.znapzend:tsformat`, inherited by each snapshot of a dataset it manages.
    public var znapzendFormat: String?

    public init(name: String, kind: Kind, creation: Date) {
        self.name = name; self.kind = kind; self.creation = creation
    }

    /// The dataset a snapshot is of (`tank/home` of `tank/home@daily`); a dataset's own name.
    public var dataset: Substring { ZFSName.dataset(of: name) }
    /// What follows the `@`; nil for a dataset.
    public var snapshotName: Substring? { ZFSName.snapshot(of: name) }
    /// The pool: the first component of the name.
    public var pool: Substring { ZFSName.pool(of: name) }
}

/// How ZFS names are made: `pool/dataset/child@snapshot`. ZFS refuses `%`, `,` and
/// bytes outside letters, digits and `-_.: ` in a name (OpenZFS `zfs_namecheck.c`,
/// zfs-fuse alike), so a comma list `fs@a,b,c` is never ambiguous.
public enum ZFSName {
    public static func dataset(of name: String) -> Substring {
        name.firstIndex(of: "@").map { name[..<$0] } ?? Substring(name)
    }

    public static func snapshot(of name: String) -> Substring? {
        name.firstIndex(of: "@").map { name[name.index(after: $0)...] }
    }

    public static func pool(of name: String) -> Substring {
        let dataset = dataset(of: name)
        return dataset.firstIndex(of: "/").map { dataset[..<$0] } ?? dataset
    }

    /// The dataset that holds `name`: its parent dataset, or for a snapshot its dataset;
    /// nil for a pool's root dataset.
    public static func parent(of name: String) -> Substring? {
        if let at = name.firstIndex(of: "@") { return name[..<at] }
        return name.lastIndex(of: "/").map { name[..<$0] }
    }

    /// True when `name` is `dataset` itself, lies below it or is one of its snapshots.
    public static func isWithin(_ name: some StringProtocol, _ dataset: some StringProtocol) -> Bool {
        guard name.hasPrefix(dataset) else { return false }
        let rest = name.dropFirst(dataset.count)
        return rest.isEmpty || rest.first == "/" || rest.first == "@"
    }
}
