import CarveCore

/// The snapshot objects of `carve snapshots list --json` (every column, the default),
/// written straight into bytes. Going through a JSONValue per column made ten thousand
/// snapshots cost several times what `btrfs subvolume list` takes; this prints the same
/// text as `SnapshotColumns.snapshotJSON` (a test compares them on every kind of row).
/// A row with a name that is not UTF-8 sets the writer's `replacedCarriedBytes`, and
/// the caller writes it again through the general writer, which adds `KEY_base64`.
struct SnapshotJSONWriter {
    /// The keys in the order this writer writes them: `SnapshotColumns.all`'s order.
    static let keys = [
        "id", "path", "subvolume_path", "filesystem", "fsuuid", "uuid", "parent_uuid", "source", "source_id",
        "received_from", "created", "otime", "date_source", "generation", "readonly", "snapshot", "manager", "config",
        "number", "name", "type",
        "important", "exclusive", "referenced", "reachable", "mountpoints", "nested", "chain_parent", "tags",
        "description",
    ]

    private let level: Int
    private let layout: JSONObjectLayout

    /// nil unless `columns` are exactly the ones this writer knows, in its order.
    init?(columns: [Column<SnapshotRow>], level: Int) {
        guard columns.map(\.key) == Self.keys else { return nil }
        self.level = level
        layout = JSONObjectLayout(keys: Self.keys, level: level)
    }

    func append(_ row: SnapshotRow, to out: ByteWriter) {
        var member = 0
        func next() { out.append(layout.prefixes[member]); member += 1 }
        next(); out.appendDecimal(row.snapshot.id)
        next();
        if let mounted = row.snapshot.mountedPath { out.appendQuoted(mounted) } else { out.appendQuoted(row.path) }
        next(); out.appendQuoted(row.snapshot.path)
        next(); out.appendQuoted(row.filesystem.mountpoint)
        next(); out.appendQuoted(row.filesystem.uuid)
        next(); out.appendQuoted(row.snapshot.uuid)
        next(); string(row.snapshot.parentUUID, out)
        next(); string(row.source, out)
        next(); number(row.snapshot.sourceID, out)
        next(); string(row.snapshot.receivedUUID, out)
        next(); out.appendQuoted(row.createdISO)
        next(); out.appendQuoted(DateText.iso8601(row.snapshot.otime, timeZone: row.timeZone))
        next(); out.appendQuoted(row.snapshot.dateSource)
        next(); out.appendDecimal(row.snapshot.generation)
        next(); bool(row.snapshot.readOnly, out)
        next(); bool(row.snapshot.isSnapshot, out)
        next();
        if row.snapshot.isSnapshot {
            out.appendQuoted(row.snapshot.metadata.manager.rawValue)
        } else {
            out.append("null")
        }
        next(); string(row.snapshot.metadata.config, out)
        next(); signed(row.snapshot.metadata.number, out)
        next(); string(row.snapshot.metadata.name, out)
        next(); string(row.snapshot.metadata.type, out)
        next(); bool(row.snapshot.metadata.important, out)
        next(); number(row.snapshot.exclusive, out)
        next(); number(row.snapshot.referenced, out)
        next(); bool(row.snapshot.isReachable, out)
        next(); strings(row.snapshot.mountpoints, out)
        next(); bool(row.snapshot.hasNestedSubvolumes, out)
        next(); bool(row.snapshot.chainParent != nil, out)
        next(); strings(row.snapshot.metadata.tags, out)
        next(); string(row.snapshot.metadata.description, out)
        out.append(layout.closing)
    }

    private func string(_ value: String?, _ out: ByteWriter) {
        if let value { out.appendQuoted(value) } else { out.append("null") }
    }

    private func number(_ value: UInt64?, _ out: ByteWriter) {
        if let value { out.appendDecimal(value) } else { out.append("null") }
    }

    private func signed(_ value: Int?, _ out: ByteWriter) {
        guard let value else { return out.append("null") }
        if value < 0 { out.append(byte: UInt8(ascii: "-")) }
        out.appendDecimal(UInt64(value.magnitude))
    }

    private func bool(_ value: Bool, _ out: ByteWriter) { out.append(value ? "true" : "false") }

    /// Lists are rare and short: the general writer lays them out.
    private func strings(_ values: [String], _ out: ByteWriter) {
        guard !values.isEmpty else { return out.append("[]") }
        if values.contains(where: ByteText.carriesBytes) { out.replacedCarriedBytes = true }
        var bytes: [UInt8] = []
        JSONValue.array(values.map(JSONValue.string)).append(to: &bytes, level: level + 1)
        out.append(bytes)
    }
}
