/// Turns a pool's datasets and snapshots, as `zfs` lists them, into the volumes every
/// listing, selection and plan works on: a snapshot's source is its dataset, its
/// exclusive bytes ZFS's `used`, its holds and clones its `ZFSFacts`. Pure, so it is
/// tested on transcripts alone.
public struct ZFSVolumes: Sendable {
    /// Every dataset and snapshot of the pool, in the order `zfs` listed them.
    public var datasets: [ZFSDataset]
    /// The tags of each held snapshot, where `zfs holds -H` could read them.
    public var holdTags: [String: [String]] = [:]
    /// Where each mounted dataset is mounted, by name (from the mount table).
    public var datasetMounts: [String: String] = [:]
    /// Where each mounted snapshot is mounted, by name: under its dataset's
    /// `.zfs/snapshot/` when ZFS mounted it on access, or elsewhere by hand.
    public var snapshotMounts: [String: [String]] = [:]
    /// The `zfs send` processes reading each snapshot, by name.
    public var sends: [String: [String]] = [:]

    public init(datasets: [ZFSDataset]) { self.datasets = datasets }

    /// The volume id of a dataset or snapshot: its ZFS guid, which zfs-fuse has too (hidden);
    /// a hash of its name where a listing gave none.
    public static func id(of dataset: ZFSDataset) -> UInt64 { dataset.guid ?? fnv1a(dataset.name) }

    /// The volumes of the datasets within `root` (the pool's name: all of them), every
    /// snapshot with its facts. Clones are found across the whole pool, whatever `root`.
    public func volumes(within root: String) -> [Volume] {
        var ids: [Substring: UInt64] = [:]
        var clones: [String: [String]] = [:]
        for dataset in datasets {
            ids[Substring(dataset.name)] = Self.id(of: dataset)
            if let origin = dataset.origin { clones[origin, default: []].append(dataset.name) }
        }
        return datasets.compactMap { dataset in
            guard ZFSName.isWithin(dataset.name, root) else { return nil }
            return volume(dataset, ids: ids, clones: clones)
        }
    }

    private func volume(_ dataset: ZFSDataset, ids: [Substring: UInt64], clones: [String: [String]]) -> Volume {
        let id = Self.id(of: dataset)
        let parent = ZFSName.parent(of: dataset.name).flatMap { ids[$0] }
        let snapshot = dataset.kind == .snapshot
        var volume = Volume(
            id: id, parentID: parent ?? 0, path: dataset.name, uuid: SubvolumeUUID(String(id)),
            parentUUID: snapshot ? parent.map { SubvolumeUUID(String($0)) } : nil, created: dataset.creation,
            readOnly: snapshot,
            isSnapshot: snapshot, exclusive: snapshot ? dataset.used : nil, referenced: dataset.referenced)
        guard snapshot else {
            volume.mountedPath = datasetMounts[dataset.name]
            volume.mountpoints = volume.mountedPath.map { [$0] } ?? []
            return volume
        }
        for place in snapshotMounts[dataset.name] ?? [] {
            if isAutomount(place, of: dataset) { volume.mountedPath = place } else { volume.mountpoints.append(place) }
        }
        volume.zfs = ZFSFacts(
            holds: dataset.userrefs, holdTags: dataset.userrefs > 0 ? holdTags[dataset.name] : [],
            clones: dataset.clones ?? clones[dataset.name] ?? [], deferDestroy: dataset.deferDestroy,
            sentBy: sends[dataset.name] ?? [])
        return volume
    }

    /// ZFS mounts a snapshot on access at `MOUNTPOINT/.zfs/snapshot/NAME` and unmounts it
    /// itself (`zfs destroy` too): only a process inside makes it busy.
    private func isAutomount(_ place: String, of snapshot: ZFSDataset) -> Bool {
        guard let name = snapshot.snapshotName, let base = datasetMounts[String(snapshot.dataset)] else {
            return false
        }
        return place == (base == "/" ? "" : base) + "/.zfs/snapshot/" + name
    }

    /// FNV-1a, 64 bits: a stable id for a name within one run.
    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return hash
    }
}
