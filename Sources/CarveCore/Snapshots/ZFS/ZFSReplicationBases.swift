/// The snapshot a replication tool's next incremental send starts from: the newest of
/// each of its series on a dataset (syncoid's per target, zrepl's, Proxmox's per job,
/// znapzend's), as btrbk's newest received snapshot on btrfs. Deleting it forces the next
/// run to send everything again (or to fail), so it is kept like a btrfs chain's end,
/// unless `--break-chains`.
public enum ZFSReplicationBases {
    /// The owners whose snapshots are replication bases.
    public static let tools: Set<SnapshotManager> = [.syncoid, .zrepl, .proxmoxReplication, .znapzend]

    /// Sets `chainParent` on the newest snapshot of each series of each tool, per dataset.
    public static func mark(_ volumes: inout [Volume]) {
        var newest: [String: Int] = [:]
        for index in volumes.indices where volumes[index].isSnapshot {
            let manager = volumes[index].metadata.manager
            guard tools.contains(manager), let dataset = volumes[index].sourcePath else { continue }
            let series = "\(manager.rawValue)\t\(dataset)\t\(volumes[index].metadata.type ?? "")"
            if let known = newest[series], !isNewer(volumes[index], than: volumes[known]) { continue }
            newest[series] = index
        }
        for index in newest.values {
            let volume = volumes[index]
            let series = volume.metadata.type.map { " (\($0))" } ?? ""
            volumes[index].chainParent =
                "the newest \(volume.metadata.manager.rawValue) snapshot of \(volume.sourcePath ?? "")\(series): "
                + "its next incremental send starts from it"
        }
    }

    /// By the tool's date, then by ZFS's creation (the listing's order breaks a tie: a
    /// later snapshot of a dataset is listed after an earlier one).
    private static func isNewer(_ a: Volume, than b: Volume) -> Bool {
        (a.metadata.created ?? a.created, a.otime) >= (b.metadata.created ?? b.created, b.otime)
    }
}
