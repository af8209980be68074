/// What tells an Incus or LXD btrfs pool from a btrfs that merely has a directory named
/// `containers`, wherever the pool is mounted: its root holds the directories that Incus
/// makes in every pool when it creates or mounts one (`createStorageStructure` in
/// internal/server/storage/backend.go makes each of `BaseDirectories`, in
/// internal/server/storage/drivers/volume.go: `containers`, `containers-snapshots`,
/// `virtual-machines`, `virtual-machines-snapshots`, `custom`, `custom-snapshots`,
/// `images`, `buckets`; LXD makes the same).
///
/// A pool root is a directory holding at least two of them (the one on the volume's path
/// and another) and either a `*-snapshots` one, a name only Incus and LXD use, or, for an
/// instance, the `backup.yaml` that Incus keeps in every instance (and so in each of its
/// snapshots). A `containers` directory alone, or beside an `images` one, with no
/// `backup.yaml` in the instance, is not a pool.
enum PoolLayout {
    static let directories = Set(lookOrder)
    /// The pool's directories in the order they are looked for: the names only a pool
    /// has first, so a real pool is told by one look beside the volume's own directory.
    static let lookOrder = [
        "containers-snapshots", "custom-snapshots", "virtual-machines-snapshots", "containers", "custom",
        "virtual-machines", "images", "buckets",
    ]
    /// The kinds whose volumes are instances, which keep `backup.yaml`.
    static let instanceKinds: Set<String> = ["containers", "virtual-machines"]

    /// The index of the volume's kind directory in `components` (a path through a mount)
    /// when it lies in a pool: `ROOT/KIND/NAME…`, or `ROOT/KIND-snapshots/NAME/SNAP…`.
    static func volume(in components: [Substring], probe: OwnerProbe) -> Int? {
        components.indices.first { at in
            // The name as one of the constants: no string made per component.
            guard let kind = lookOrder.first(where: { $0 == components[at] }),
                components.count > at + (kind.hasSuffix("-snapshots") ? 2 : 1)
            else { return false }
            return isPoolRoot(components[..<at], kind: kind, volume: components[(at + 1)...], probe)
        }
    }

    /// True when the directory `root` holds a pool (see the type's comment).
    static func isPoolRoot(
        _ root: ArraySlice<Substring>, kind: String, volume: ArraySlice<Substring>, _ probe: OwnerProbe
    ) -> Bool {
        var base = "/"
        for name in root { base += name + "/" }
        var found = 1
        var onlyAPoolHas = kind.hasSuffix("-snapshots")
        for name in lookOrder where name != kind && !(found >= 2 && onlyAPoolHas) {
            guard probe(base + name) else { continue }
            found += 1
            onlyAPoolHas = onlyAPoolHas || name.hasSuffix("-snapshots")
        }
        if found >= 2 && onlyAPoolHas { return true }
        return found >= 2 && backupFiles(base, kind: kind, volume: volume).contains(where: probe)
    }

    /// Where the instance's `backup.yaml` is: in it, or in the snapshot and in the
    /// instance it was taken of.
    static func backupFiles(_ base: String, kind: String, volume: ArraySlice<Substring>) -> [String] {
        let instance = kind.hasSuffix("-snapshots") ? String(kind.dropLast("-snapshots".count)) : kind
        guard instanceKinds.contains(instance), let name = volume.first else { return [] }
        var files = ["\(base)\(instance)/\(name)/backup.yaml"]
        if kind != instance, let snapshot = volume.dropFirst().first {
            files.insert("\(base)\(kind)/\(name)/\(snapshot)/backup.yaml", at: 0)
        }
        return files
    }
}
