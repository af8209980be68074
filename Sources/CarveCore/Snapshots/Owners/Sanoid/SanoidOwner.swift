/// sanoid: `DATASET@autosnap_YYYY-MM-DD_HH:MM:SS_TYPE` in local time (`get_date` in
/// sanoid), one series per type (frequently, hourly, daily, weekly, monthly, yearly).
struct SanoidOwner: SnapshotOwner {
    var manager: SnapshotManager { .sanoid }
    var filesystems: [FilesystemKind] { [.zfs] }
    var pathHints: [StaticString] { ["@autosnap_"] }

    func recognise(_ place: OwnerPlace, context: OwnerContext) -> OwnerRecognition? {
        guard let (_, name) = ZFSSnapshotNames.split(place), name.hasPrefix("autosnap_") else { return nil }
        let rest = name.dropFirst("autosnap_".count)
        let stamp = rest.prefix(19)
        let type = rest.dropFirst(20)
        guard rest.dropFirst(19).first == "_", !type.isEmpty,
            let created = ZFSSnapshotNames.date(stamp, pattern: "YYYY-MM-DD_hh:mm:ss", zone: context.timeZone)
        else { return nil }
        return OwnerRecognition(
            ManagerMetadata(manager: manager, name: String(name), type: String(type), created: created))
    }
}

extension SnapshotManager {
    public static let sanoid = SnapshotManager(rawValue: "sanoid")
}
