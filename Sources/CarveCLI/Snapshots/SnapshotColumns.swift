import CarveCore

/// The columns of `carve snapshots list`: the text table, `--output` and the JSON
/// keys. Delete and thin reports reuse `snapshotJSON` for their snapshot objects.
enum SnapshotColumns {
    static let defaults = ["ID", "CREATED", "MANAGER", "NUMBER", "SOURCE", "PATH", "EXCL", "RFER", "DESCRIPTION"]

    static func size(_ value: UInt64?, _ bytes: Bool) -> String {
        guard let value else { return "-" }
        return bytes ? String(value) : ByteSize.format(value)
    }

    static let all = definitions.map(\.column)

    /// Added by `--explain`: what the selection does with each snapshot, and why.
    static let explained = explainedDefinitions.map(\.column)

    /// `column` with its JSON writer as written (see `SnapshotColumn`).
    static func withCells(_ column: Column<SnapshotRow>) -> SnapshotColumn {
        (definitions + explainedDefinitions).first { $0.column.key == column.key } ?? SnapshotColumn(column)
    }

    private static let definitions: [SnapshotColumn] = [
        SnapshotColumn(
            "ID", help: "btrfs subvolume id; a ZFS snapshot's guid", rightAligned: true,
            text: { row, _ in String(decimal: row.snapshot.id) }, cells: { row, out in out.uint(row.snapshot.id) }),
        SnapshotColumn(
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
        SnapshotColumn(
            "SUBVOLUME", key: "subvolume_path", help: "path from the filesystem's top level",
            text: { row, _ in escapedForTable(row.snapshot.path) }, cells: { row, out in out.string(row.snapshot.path) }
        ),
        SnapshotColumn(
            "FILESYSTEM", help: "a mountpoint of the filesystem",
            text: { row, _ in escapedForTable(row.filesystemMountpoint) },
            cells: { row, out in out.string(row.filesystemMountpoint) }),
        SnapshotColumn(
            "FSTYPE", key: "filesystem_type", help: "btrfs, zfs or lvm-thin",
            text: { row, _ in row.filesystem.kind.rawValue },
            cells: { row, out in out.string(row.filesystem.kind.rawValue) }),
        SnapshotColumn(
            "FSUUID", help: "filesystem UUID (ZFS: the pool's guid)", text: { row, _ in row.filesystem.uuid },
            cells: { row, out in out.string(row.filesystem.uuid) }),
        SnapshotColumn(
            "UUID", help: "subvolume UUID", text: { row, _ in row.snapshot.uuid.text },
            cells: { row, out in out.uuid(row.snapshot.uuid) }),
        SnapshotColumn(
            "PARENT-UUID", key: "parent_uuid", help: "UUID of the subvolume it was taken of",
            text: { row, _ in row.snapshot.parentUUID?.text ?? "-" },
            cells: { row, out in out.uuid(row.snapshot.parentUUID) }),
        SnapshotColumn(
            "SOURCE",
            help:
                "the subvolume it was taken of, when that still exists (received: the snapshot it was sent from, when mounted); ZFS: its dataset",
            text: { row, _ in row.source.map(escapedForTable) ?? "-" }, cells: { row, out in out.string(row.source) }),
        SnapshotColumn(
            "SOURCE-ID", key: "source_id", help: "id of the source subvolume", rightAligned: true,
            text: { row, _ in row.snapshot.sourceID.map(String.init) ?? "-" },
            cells: { row, out in out.uint(row.snapshot.sourceID) }),
        SnapshotColumn(
            "RECEIVED-FROM", key: "received_from",
            help: "a received snapshot: the UUID of the snapshot it was sent from",
            text: { row, _ in row.snapshot.receivedUUID?.text ?? "-" },
            cells: { row, out in out.uuid(row.snapshot.receivedUUID) }),
        SnapshotColumn(
            "CREATED", help: "when it was taken: the manager's date, else otime; ISO 8601 with offset in JSON",
            text: { row, _ in row.createdShort },
            cells: { row, out in out.date(row.snapshot.created, timeZone: row.timeZone) }),
        SnapshotColumn(
            "OTIME", help: "the subvolume's creation time (on a backup disk: when it was received)",
            text: { row, _ in DateText.short(row.snapshot.otime, timeZone: row.timeZone) },
            cells: { row, out in out.date(row.snapshot.otime, timeZone: row.timeZone) }),
        SnapshotColumn(
            "DATE-SOURCE", key: "date_source",
            help: "where CREATED comes from: the manager whose name or metadata dates it, or otime (ZFS: creation)",
            text: { row, _ in row.snapshot.dateSource }, cells: { row, out in out.string(row.snapshot.dateSource) }),
        SnapshotColumn(
            "GEN", key: "generation", help: "generation (transaction id)", rightAligned: true,
            text: { row, _ in String(decimal: row.snapshot.generation) },
            cells: { row, out in out.uint(row.snapshot.generation) }),
        SnapshotColumn(
            "RO", key: "readonly", help: "read-only snapshot",
            text: { row, _ in row.snapshot.readOnly ? "yes" : "no" },
            cells: { row, out in out.bool(row.snapshot.readOnly) }),
        SnapshotColumn(
            "SNAPSHOT", help: "a snapshot (no: a plain subvolume, shown by --all-subvolumes)",
            text: { row, _ in row.snapshot.isSnapshot ? "yes" : "no" },
            cells: { row, out in out.bool(row.snapshot.isSnapshot) }),
        SnapshotColumn(
            "MANAGER",
            help:
                "its owner: \(SnapshotOwners.names.joined(separator: ", "))",
            text: { row, _ in row.snapshot.isSnapshot ? row.snapshot.metadata.manager.rawValue : "(subvolume)" },
            cells: { row, out in
                if row.snapshot.isSnapshot { out.string(row.snapshot.metadata.manager.rawValue) } else { out.null() }
            }),
        SnapshotColumn(
            "CONFIG", help: "snapper config",
            text: { row, _ in row.snapshot.metadata.config.map(escapedForTable) ?? "" },
            cells: { row, out in out.string(row.snapshot.metadata.config) }),
        SnapshotColumn(
            "NUMBER", help: "snapper number, timeshift or btrbk snapshot name", rightAligned: true,
            text: { row, _ in escapedForTable(row.number) },
            cells: { row, out in out.int(row.snapshot.metadata.number) }),
        SnapshotColumn(
            "NAME", help: "timeshift or btrbk snapshot name",
            text: { row, _ in escapedForTable(row.snapshot.metadata.name ?? "") },
            cells: { row, out in out.string(row.snapshot.metadata.name) }),
        SnapshotColumn(
            "TYPE",
            help:
                "snapper type (single, pre, post); the series of a ZFS tool: zfs-auto-snapshot's label, sanoid's type, syncoid's target, Proxmox's job",
            text: { row, _ in row.snapshot.metadata.type ?? "" },
            cells: { row, out in out.string(row.snapshot.metadata.type) }),
        SnapshotColumn(
            "IMPORTANT", help: "snapper important=yes",
            text: { row, _ in row.snapshot.metadata.important ? "yes" : "" },
            cells: { row, out in out.bool(row.snapshot.metadata.important) }),
        SnapshotColumn(
            "EXCL", key: "exclusive", help: "bytes only this snapshot holds (quota; ZFS: used), - when unknown",
            rightAligned: true,
            text: { row, bytes in size(row.snapshot.exclusive, bytes) },
            cells: { row, out in out.uint(row.snapshot.exclusive) }),
        SnapshotColumn(
            "RFER", key: "referenced", help: "bytes this snapshot references (quota; ZFS: referenced), - when unknown",
            rightAligned: true,
            text: { row, bytes in size(row.snapshot.referenced, bytes) },
            cells: { row, out in out.uint(row.snapshot.referenced) }),
        SnapshotColumn(
            "REACHABLE", help: "a mount reaches it, so it can be named by path",
            text: { row, _ in row.snapshot.isReachable ? "yes" : "no" },
            cells: { row, out in out.bool(row.snapshot.isReachable) }),
        SnapshotColumn(
            "MOUNTPOINTS", help: "where the snapshot itself is mounted",
            text: { row, _ in row.snapshot.mountpoints.map(escapedForTable).joined(separator: ",") },
            cells: { row, out in out.strings(row.snapshot.mountpoints) }),
        SnapshotColumn(
            "NESTED", help: "other subvolumes lie inside it",
            text: { row, _ in row.snapshot.hasNestedSubvolumes ? "yes" : "" },
            cells: { row, out in out.bool(row.snapshot.hasNestedSubvolumes) }),
        SnapshotColumn(
            "CHAIN", key: "chain_parent", help: "the next incremental send needs it: kept unless --break-chains",
            text: { row, _ in row.snapshot.chainParent == nil ? "" : "yes" },
            cells: { row, out in out.bool(row.snapshot.chainParent != nil) }),
        SnapshotColumn(
            "HOLDS", help: "ZFS user holds: their tags, or their count where zfs cannot name them",
            text: { row, _ in row.snapshot.zfs.map { escapedForTable($0.holdsText) } ?? "" },
            cells: { row, out in out.uint(row.snapshot.zfs.map { UInt64($0.holds) }) }),
        SnapshotColumn(
            "HOLD-TAGS", key: "hold_tags", help: "ZFS user holds' tags (null where zfs cannot name them)",
            text: { row, _ in (row.snapshot.zfs?.holdTags ?? []).map(escapedForTable).joined(separator: ",") },
            cells: { row, out in
                if let tags = row.snapshot.zfs?.holdTags {
                    out.value(.array(tags.map(JSONValue.string)))
                } else {
                    out.null()
                }
            }),
        SnapshotColumn(
            "CLONES", help: "ZFS datasets cloned from this snapshot",
            text: { row, _ in (row.snapshot.zfs?.clones ?? []).map(escapedForTable).joined(separator: ",") },
            cells: { row, out in
                if let clones = row.snapshot.zfs?.clones {
                    out.value(.array(clones.map(JSONValue.string)))
                } else {
                    out.null()
                }
            }),
        SnapshotColumn(
            "TAGS", help: "timeshift tags",
            text: { row, _ in row.snapshot.metadata.tags.map(escapedForTable).joined(separator: " ") },
            cells: { row, out in out.strings(row.snapshot.metadata.tags) }),
        SnapshotColumn(
            "DESCRIPTION", help: "the manager's description or comment",
            text: { row, _ in escapedForTable(row.snapshot.metadata.description ?? "") },
            cells: { row, out in out.string(row.snapshot.metadata.description) }),
    ]

    private static let explainedDefinitions: [SnapshotColumn] = [
        SnapshotColumn(
            "DECISION", help: "--explain: delete (selected) or keep",
            text: { row, _ in row.explanation?.decision ?? "" },
            cells: { row, out in out.string(row.explanation?.decision) }),
        SnapshotColumn(
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
