/// zfs-auto-snapshot: `DATASET@zfs-auto-snap_LABEL-YYYY-MM-DD-HHMM`, the date in UTC
/// (`date -u +%F-%H%M` in zfs-auto-snapshot.sh), one series per label (frequent, hourly,
/// daily, weekly, monthly or the user's own).
struct ZFSAutoSnapshotOwner: SnapshotOwner {
    var manager: SnapshotManager { .zfsAutoSnapshot }
    var filesystems: [FilesystemKind] { [.zfs] }
    var pathHints: [StaticString] { ["@zfs-auto-snap"] }

    func recognise(_ place: OwnerPlace, context: OwnerContext) -> OwnerRecognition? {
        guard let (_, name) = ZFSSnapshotNames.split(place), name.hasPrefix("zfs-auto-snap"), name.utf8.count > 31
        else { return nil }
        // The prefix, one separator character (`--sep`, `_` by default), LABEL, then `-` and 15 characters.
        let rest = name.dropFirst("zfs-auto-snap".count + 1)
        let stamp = rest.suffix(15)
        let label = rest.dropLast(16)
        guard rest.dropLast(15).last == "-", !label.isEmpty,
            let created = ZFSSnapshotNames.date(stamp, pattern: "YYYY-MM-DD-hhmm", zone: .utc)
        else {
            return OwnerRecognition(
                nil, warning: "\(place.path): not a date zfs-auto-snapshot writes; the snapshot is listed as plain")
        }
        return OwnerRecognition(
            ManagerMetadata(manager: manager, name: String(name), type: String(label), created: created))
    }
}

extension SnapshotManager {
    public static let zfsAutoSnapshot = SnapshotManager(rawValue: "zfs-auto-snapshot")
}
