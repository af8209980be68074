/// zrepl's snapshots: `DATASET@zrepl_YYYYMMDD_HHMMSS_000` in UTC (its snapper's
/// "20060102_150405_000" with the `zrepl_` prefix its examples configure). The newest is
/// what the next replication starts from (`ZFSReplicationBases`); zrepl's own holds
/// (`zrepl_STEP_J_…`, `zrepl_last_received_J_…`) keep the ones a step needs.
struct ZreplOwner: SnapshotOwner {
    var manager: SnapshotManager { .zrepl }
    var filesystems: [FilesystemKind] { [.zfs] }
    var pathHints: [StaticString] { ["@zrepl_"] }

    func recognise(_ place: OwnerPlace, context: OwnerContext) -> OwnerRecognition? {
        guard let (_, name) = ZFSSnapshotNames.split(place), name.hasPrefix("zrepl_") else { return nil }
        let stamp = name.dropFirst("zrepl_".count)
        guard stamp.utf8.count == 19, stamp.hasSuffix("_000") || stamp.suffix(3).allSatisfy(\.isNumber),
            let created = ZFSSnapshotNames.date(stamp.dropLast(4), pattern: "YYYYMMDD_hhmmss", zone: .utc)
        else { return nil }
        return OwnerRecognition(ManagerMetadata(manager: manager, name: String(name), created: created))
    }
}

extension SnapshotManager {
    public static let zrepl = SnapshotManager(rawValue: "zrepl")
}
