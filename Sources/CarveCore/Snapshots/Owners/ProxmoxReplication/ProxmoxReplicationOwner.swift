/// Proxmox VE's storage replication: `DATASET@__replicate_JOBID_EPOCH__` (JOBID is
/// `VMID-N`, EPOCH the seconds of the sync), one series per job. The newest of a job is
/// the base of its next incremental send (`ZFSReplicationBases`).
struct ProxmoxReplicationOwner: SnapshotOwner {
    var manager: SnapshotManager { .proxmoxReplication }
    var filesystems: [FilesystemKind] { [.zfs] }
    var pathHints: [StaticString] { ["@__replicate_"] }

    func recognise(_ place: OwnerPlace, context: OwnerContext) -> OwnerRecognition? {
        guard let (_, name) = ZFSSnapshotNames.split(place), name.hasPrefix("__replicate_"), name.hasSuffix("__")
        else { return nil }
        let inner = name.dropFirst("__replicate_".count).dropLast(2)
        guard let underscore = inner.lastIndex(of: "_"), underscore != inner.startIndex,
            let seconds = Int64(inner[inner.index(after: underscore)...]), seconds > 0
        else { return nil }
        return OwnerRecognition(
            ManagerMetadata(
                manager: manager, name: String(name), type: String(inner[..<underscore]),
                created: Date(timeIntervalSince1970: TimeInterval(seconds))))
    }
}

extension SnapshotManager {
    public static let proxmoxReplication = SnapshotManager(rawValue: "proxmox-replication")
}
