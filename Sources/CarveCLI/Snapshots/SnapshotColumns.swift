import CarveCore

/// The columns of `carve snapshots list`: the text table, `--output` and the JSON
/// keys. Delete and thin reports reuse `snapshotJSON` for their snapshot objects.
enum SnapshotColumns {
    static let defaults = ["ID", "CREATED", "MANAGER", "NUMBER", "SOURCE", "PATH", "EXCL", "RFER", "DESCRIPTION"]

    static func size(_ value: UInt64?, _ bytes: Bool) -> String {
        guard let value else { return "-" }
        return bytes ? String(value) : ByteSize.format(value)
    }

    static let all: [Column<SnapshotRow>] = [
        Column(
            "ID", help: "btrfs subvolume id; a ZFS snapshot's guid", rightAligned: true,
            text: { row, _ in String(decimal: row.snapshot.id) }, cells: { row, out in out.uint(row.snapshot.id) }),
        Column(
            "PATH",
            help: "mounted path, or <FS_TREE>/path from the top level when no mount reaches it; ZFS: pool/dataset@name",
            text: { row, _ in
                // A reachable path is the string itself: `+ ""` copied every path of the table.
                let path = escapedForTable(row.path)
                return row.snapshot.isReachable || row.isZFS ? path : path + " (not mounted)"
            },
            cells: { row, out in
                // Mounted (most often): the path itself, not a copy made by `row.path`.
                if !row.isZFS, let mounted = row.snapshot.mountedPath {
                    out.string(mounted)
                } else {
                    out.string(row.path)
                }
            }),
        Column(
            "SUBVOLUME", key: "subvolume_path", help: "path from the filesystem's top level",
            text: { row, _ in escapedForTable(row.snapshot.path) }, cells: { row, out in out.string(row.snapshot.path) }
        ),
        Column(
            "FILESYSTEM", help: "a mountpoint of the filesystem",
            text: { row, _ in escapedForTable(row.filesystemMountpoint) },
            cells: { row, out in out.string(row.filesystemMountpoint) }),
        Column(
            "FSTYPE", key: "filesystem_type", help: "btrfs, zfs or lvm-thin",
            text: { row, _ in row.filesystem.kind.rawValue },
            cells: { row, out in out.string(row.filesystem.kind.rawValue) }),
        Column(
            "FSUUID", help: "filesystem UUID (ZFS: the pool's guid)", text: { row, _ in row.filesystem.uuid },
            cells: { row, out in out.string(row.filesystem.uuid) }),
        Column(
            "UUID", help: "subvolume UUID", text: { row, _ in row.snapshot.uuid },
            cells: { row, out in out.string(row.snapshot.uuid) }),
        Column(
            "PARENT-UUID", key: "parent_uuid", help: "UUID of the subvolume it was taken of",
            text: { row, _ in row.snapshot.parentUUID ?? "-" },
            cells: { row, out in out.string(row.snapshot.parentUUID) }),
        Column(
            "SOURCE",
            help:
                "the subvolume it was taken of, when that still exists (received: the snapshot it was sent from, when mounted); ZFS: its dataset",
            text: { row, _ in row.source.map(escapedForTable) ?? "-" }, cells: { row, out in out.string(row.source) }),
        Column(
            "SOURCE-ID", key: "source_id", help: "id of the source subvolume", rightAligned: true,
            text: { row, _ in row.snapshot.sourceID.map(String.init) ?? "-" },
            cells: { row, out in out.uint(row.snapshot.sourceID) }),
        Column(
            "RECEIVED-FROM", key: "received_from",
            help: "a received snapshot: the UUID of the snapshot it was sent from",
            text: { row, _ in row.snapshot.receivedUUID ?? "-" },
            cells: { row, out in out.string(row.snapshot.receivedUUID) }),
        Column(
            "CREATED", help: "when it was taken: the manager's date, else otime; ISO 8601 with offset in JSON",
            text: { row, _ in row.createdShort },
            cells: { row, out in out.date(row.snapshot.created, timeZone: row.timeZone) }),
        Column(
            "OTIME", help: "the subvolume's creation time (on a backup disk: when it was received)",
            text: { row, _ in DateText.short(row.snapshot.otime, timeZone: row.timeZone) },
            cells: { row, out in out.date(row.snapshot.otime, timeZone: row.timeZone) }),
        Column(
            "DATE-SOURCE", key: "date_source",
            help: "where CREATED comes from: the manager whose name or metadata dates it, or otime (ZFS: creation)",
            text: { row, _ in row.snapshot.dateSource }, cells: { row, out in out.string(row.snapshot.dateSource) }),
        Column(
            "GEN", key: "generation", help: "generation (transaction id)", rightAligned: true,
            text: { row, _ in String(decimal: row.snapshot.generation) },
            cells: { row, out in out.uint(row.snapshot.generation) }),
        Column(
            "RO", key: "readonly", help: "read-only snapshot",
            text: { row, _ in row.snapshot.readOnly ? "yes" : "no" },
            cells: { row, out in out.bool(row.snapshot.readOnly) }),
        Column(
            "SNAPSHOT", help: "a snapshot (no: a plain subvolume, shown by --all-subvolumes)",
            text: { row, _ in row.snapshot.isSnapshot ? "yes" : "no" },
            cells: { row, out in out.bool(row.snapshot.isSnapshot) }),
        Column(
            "MANAGER",
            help:
                "its owner: \(SnapshotOwners.names.joined(separator: ", "))",
            text: { row, _ in row.snapshot.isSnapshot ? row.snapshot.metadata.manager.rawValue : "(subvolume)" },
            cells: { row, out in
                if row.snapshot.isSnapshot { out.string(row.snapshot.metadata.manager.rawValue) } else { out.null() }
            }),
        Column(
            "CONFIG", help: "snapper config",
            text: { row, _ in row.snapshot.metadata.config.map(escapedForTable) ?? "" },
            cells: { row, out in out.string(row.snapshot.metadata.config) }),
        Column(
            "NUMBER", help: "snapper number, timeshift or btrbk snapshot name", rightAligned: true,
            text: { row, _ in escapedForTable(row.number) },
            cells: { row, out in out.int(row.snapshot.metadata.number) }),
        Column(
            "NAME", help: "timeshift or btrbk snapshot name",
            text: { row, _ in escapedForTable(row.snapshot.metadata.name ?? "") },
            cells: { row, out in out.string(row.snapshot.metadata.name) }),
        Column(
            "TYPE",
            help:
                "snapper type (single, pre, post); the series of a ZFS tool: zfs-auto-snapshot's label, sanoid's type, syncoid's target, Proxmox's job",
            text: { row, _ in row.snapshot.metadata.type ?? "" },
            cells: { row, out in out.string(row.snapshot.metadata.type) }),
        Column(
            "IMPORTANT", help: "snapper important=yes",
            text: { row, _ in row.snapshot.metadata.important ? "yes" : "" },
            cells: { row, out in out.bool(row.snapshot.metadata.important) }),
        Column(
            "EXCL", key: "exclusive", help: "bytes only this snapshot holds (quota; ZFS: used), - when unknown",
            rightAligned: true,
            text: { row, bytes in size(row.snapshot.exclusive, bytes) },
            cells: { row, out in out.uint(row.snapshot.exclusive) }),
        Column(
            "RFER", key: "referenced", help: "bytes this snapshot references (quota; ZFS: referenced), - when unknown",
            rightAligned: true,
            text: { row, bytes in size(row.snapshot.referenced, bytes) },
            cells: { row, out in out.uint(row.snapshot.referenced) }),
        Column(
            "REACHABLE", help: "a mount reaches it, so it can be named by path",
            text: { row, _ in row.snapshot.isReachable ? "yes" : "no" },
            cells: { row, out in out.bool(row.snapshot.isReachable) }),
        Column(
            "MOUNTPOINTS", help: "where the snapshot itself is mounted",
            text: { row, _ in row.snapshot.mountpoints.map(escapedForTable).joined(separator: ",") },
            cells: { row, out in out.strings(row.snapshot.mountpoints) }),
        Column(
            "NESTED", help: "other subvolumes lie inside it",
            text: { row, _ in row.snapshot.hasNestedSubvolumes ? "yes" : "" },
            cells: { row, out in out.bool(row.snapshot.hasNestedSubvolumes) }),
        Column(
            "CHAIN", key: "chain_parent", help: "the next incremental send needs it: kept unless --break-chains",
            text: { row, _ in row.snapshot.chainParent == nil ? "" : "yes" },
            cells: { row, out in out.bool(row.snapshot.chainParent != nil) }),
        Column(
            "HOLDS", help: "ZFS user holds: their tags, or their count where zfs cannot name them",
            text: { row, _ in row.snapshot.zfs.map { escapedForTable($0.holdsText) } ?? "" },
            cells: { row, out in out.uint(row.snapshot.zfs.map { UInt64($0.holds) }) }),
        Column(
            "HOLD-TAGS", key: "hold_tags", help: "ZFS user holds' tags (null where zfs cannot name them)",
            text: { row, _ in (row.snapshot.zfs?.holdTags ?? []).map(escapedForTable).joined(separator: ",") },
            cells: { row, out in
                if let tags = row.snapshot.zfs?.holdTags {
                    out.value(.array(tags.map(JSONValue.string)))
                } else {
                    out.null()
                }
            }),
        Column(
            "CLONES", help: "ZFS datasets cloned from this snapshot",
            text: { row, _ in (row.snapshot.zfs?.clones ?? []).map(escapedForTable).joined(separator: ",") },
            cells: { row, out in
                if let clones = row.snapshot.zfs?.clones {
                    out.value(.array(clones.map(JSONValue.string)))
                } else {
                    out.null()
                }
            }),
        Column(
            "TAGS", help: "timeshift tags",
            text: { row, _ in row.snapshot.metadata.tags.map(escapedForTable).joined(separator: " ") },
            cells: { row, out in out.strings(row.snapshot.metadata.tags) }),
        Column(
            "DESCRIPTION", help: "the manager's description or comment",
            text: { row, _ in escapedForTable(row.snapshot.metadata.description ?? "") },
            cells: { row, out in out.string(row.snapshot.metadata.description) }),
    ]

    /// Added by `--explain`: what the selection does with each snapshot, and why.
    static let explained: [Column<SnapshotRow>] = [
        Column(
            "DECISION", help: "--explain: delete (selected) or keep",
            text: { row, _ in row.explanation?.decision ?? "" },
            cells: { row, out in out.string(row.explanation?.decision) }),
        Column(
            "KEPT-BY", key: "kept_by", help: "--explain: the retention rules that keep it (daily 2026-11-17, last 3)",
            text: { row, _ in row.explanation?.keptByText ?? "" },
            cells: { row, out in out.value(.array((row.explanation?.keptBy ?? []).map { .string($0.description) })) }),
    ]

    /// The JSON object of one snapshot: every column, in table order.
    static func snapshotJSON(_ row: SnapshotRow, columns: [Column<SnapshotRow>] = all) -> JSONValue {
        .object(columns.map { ($0.key, $0.json(row)) })
    }
}

extension SnapshotExplanation {
    var keptByText: String {
        if !keptBy.isEmpty { return keptBy.map(\.description).joined(separator: ", ") }
        if let pairedWith { return "(pre/post pair with \(pairedWith))" }
        return selected ? "-" : "(not selected by the time filters)"
    }
}
