/// syncoid's sync snapshots: `DATASET@syncoid_[IDENTIFIER_]HOST_YYYY-MM-DD:HH:MM:SS-GMT±HH:MM`
/// (`newsyncsnap` and `getdate` in syncoid; older versions wrote no `-GMT…`, in local
/// time), one series per target (what lies between `syncoid_` and the date). The newest of a
/// series is the base of the next incremental send (`ZFSReplicationBases`).
struct SyncoidOwner: SnapshotOwner {
    var manager: SnapshotManager { .syncoid }
    var filesystems: [FilesystemKind] { [.zfs] }
    var pathHints: [StaticString] { ["@syncoid_"] }

    func recognise(_ place: OwnerPlace, context: OwnerContext) -> OwnerRecognition? {
        guard let (_, name) = ZFSSnapshotNames.split(place), name.hasPrefix("syncoid_") else { return nil }
        var stamp = name.dropFirst("syncoid_".count)
        var zone = context.timeZone
        if let gmt = ZFSSnapshotNames.lastIndex(of: "-GMT", in: stamp) {
            // syncoid writes no `+`: `GMT01:00` is east of UTC, `GMT-05:00` west.
            let offset = stamp[gmt...].dropFirst(4)
            let west = offset.first == "-"
            let digits = west ? offset.dropFirst() : offset
            guard digits.utf8.count == 5, let hours = Int(digits.prefix(2)), digits.dropFirst(2).first == ":",
                let minutes = Int(digits.suffix(2)),
                let fixed = TimeZone(secondsFromGMT: (west ? -1 : 1) * (hours * 3_600 + minutes * 60))
            else { return nil }
            zone = fixed
            stamp = stamp[..<gmt]
        }
        let date = stamp.suffix(19)
        let target = stamp.dropLast(20)
        guard stamp.dropLast(19).last == "_", !target.isEmpty,
            let created = ZFSSnapshotNames.date(date, pattern: "YYYY-MM-DD:hh:mm:ss", zone: zone)
        else { return nil }
        return OwnerRecognition(
            ManagerMetadata(manager: manager, name: String(name), type: String(target), created: created))
    }
}

extension SnapshotManager {
    public static let syncoid = SnapshotManager(rawValue: "syncoid")
}
