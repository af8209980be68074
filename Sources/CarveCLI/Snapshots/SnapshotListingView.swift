import CarveCore

/// What `carve snapshots list` prints: the notes of each listing on stderr, the rows in
/// the order `--sort` asks for, as a table or as `{"snapshots": [...]}`, and a summary.
struct SnapshotListingView {
    let options: ListOptions
    let columns: [Column<SnapshotRow>]
    let order: (SnapshotRow, SnapshotRow) -> Bool
    var bytes: Bool { options.bytes }

    /// Checks `--output` and `--sort` before anything is listed.
    init(options: ListOptions) throws {
        self.options = options
        let chosen = try selectColumns(
            options.output, from: SnapshotColumns.all + SnapshotColumns.explained, defaults: SnapshotColumns.defaults)
        // --explain adds its columns unless --output placed them already.
        columns =
            chosen
            + (options.explain
                ? SnapshotColumns.explained.filter { column in !chosen.contains { $0.key == column.key } } : [])
        order = try Self.sortKey(options.sort)
    }

    /// `--output help`: the columns and what they hold.
    static func columnHelp(to out: any OutputSink) {
        for column in SnapshotColumns.all { out.line("\(column.name.padding(12)) \(column.help)") }
    }

    func render(_ listings: [VolumeListing], _ request: SnapshotListRequest, _ services: Services) {
        let out = services.output
        var rows: [SnapshotRow] = []
        var exclusiveKnown = true
        var exact = ExactTotals()
        for listing in listings {
            if let scanned = listing.exact, services.exactScan.showsSummary(of: scanned) {
                for note in scanned.notes { out.note(note) }
                out.note("\(listing.filesystem.mountpoint): \(scanned.summary)")
            }
            for warning in listing.warnings { out.warn(warning) }
            if let note = listing.sizeNote { out.note(note) }
            let outcome = request.outcome(in: listing, now: services.clock.now)
            for note in outcome.pairNotes { out.note(note) }
            let selected = options.explain ? outcome.considered : outcome.selected
            exclusiveKnown = exclusiveKnown && selected.allSatisfy { listing.subvolumes[$0].exclusive != nil }
            exact.add(listing, at: selected)
            rows += SnapshotRow.rows(
                at: selected, of: listing, timeZone: services.clock.timeZone,
                explanations: options.explain ? SnapshotListRequest.explanations(outcome, of: listing) : nil)
        }
        rows.sort(by: order)
        FreedAtExit.keep(rows)
        if options.json {
            let all = SnapshotColumns.all + (options.explain ? SnapshotColumns.explained : [])
            writeJSON(rows, columns: options.output == nil ? all : columns, to: out, exact: exact.isEmpty ? nil : exact)
        } else if !rows.isEmpty {
            // Each column's text as written (`SnapshotColumn`), not through `Column`'s thunk.
            // `bytes` read once: an option read per cell is a generic metadata lookup each time.
            let (written, bytes) = (columns.map(SnapshotColumns.withCells), bytes)
            let table = TextTable(heads: columns, rows: rows.count) { written[$1].text(rows[$0], bytes) }
            table.write(to: out)
        }
        out.note(
            summary(rows, exclusiveKnown: exclusiveKnown) + (exact.isEmpty ? "" : "; " + exact.clause(bytes: bytes)))
    }

    /// `{"snapshots": [...]}`, written one snapshot at a time: ten thousand snapshots
    /// never sit in memory as one document.
    func writeJSON(
        _ rows: [SnapshotRow], columns: [Column<SnapshotRow>], to out: any OutputSink, exact: ExactTotals? = nil
    ) {
        guard !rows.isEmpty else {
            return out.line(
                JSONValue.document([("snapshots", .array([]))] + (exact.map { [("exact", $0.json)] } ?? [])).rendered())
        }
        out.write("{\n   \"carve_version\": \"\(CarveCommand.version)\",\n   \"snapshots\": [\n")
        let chunk = ByteWriter()
        let writer = SnapshotJSONWriter(columns: columns, level: 2, into: chunk)
        var object: [UInt8] = []
        for (index, row) in rows.enumerated() {
            chunk.append("      ")
            append(row, columns: columns, to: chunk, writer: writer, scratch: &object)
            chunk.append(index < rows.count - 1 ? ",\n" : "\n")
            if chunk.count > 1 << 16 { chunk.take { out.write(bytes: $0) } }
        }
        chunk.take { out.write(bytes: $0) }
        out.write("   ]" + (exact?.jsonMember ?? "") + "\n}\n")
    }

    /// One snapshot object by the byte writer; a row with a name that is not UTF-8 again
    /// by the general writer, the one that adds `KEY_base64` members.
    private func append(
        _ row: SnapshotRow, columns: [Column<SnapshotRow>], to chunk: ByteWriter, writer: SnapshotJSONWriter,
        scratch: inout [UInt8]
    ) {
        let start = chunk.count
        writer.append(row)
        guard chunk.replacedCarriedBytes else { return }
        chunk.truncate(to: start)
        chunk.replacedCarriedBytes = false
        scratch.removeAll(keepingCapacity: true)
        SnapshotColumns.snapshotJSON(row, columns: columns).append(to: &scratch, level: 2)
        chunk.append(scratch)
    }

    func summary(_ rows: [SnapshotRow], exclusiveKnown: Bool) -> String {
        // Counted in place: copying ten thousand rows to count them doubled the peak memory.
        var count = 0
        var total: UInt64 = 0
        var uuids = Set<String>()
        var last: String?
        for row in rows {
            // The rows of one filesystem share its UUID's string: hashed when it changes, not per row.
            if row.filesystem.uuid != last {
                uuids.insert(row.filesystem.uuid)
                last = row.filesystem.uuid
            }
            guard row.snapshot.isSnapshot else { continue }
            count += 1
            total += row.snapshot.exclusive ?? 0
        }
        let filesystems = uuids.count
        var text = "\(count) snapshot\(count == 1 ? "" : "s")"
        if filesystems > 1 { text += " on \(filesystems) filesystems" }
        guard count > 0 else { return text }
        guard exclusiveKnown else { return text + "; exclusive sizes unknown" }
        let shown = bytes ? "\(total) bytes" : ByteSize.format(total)
        return text + ", \(shown) exclusive in total (together they may free more)"
    }

    /// The order `--sort` asks for.
    static func sortKey(_ sort: String?) throws -> (SnapshotRow, SnapshotRow) -> Bool {
        let name = (sort ?? "CREATED").uppercased()
        func byCreated(_ a: SnapshotRow, _ b: SnapshotRow) -> Bool {
            (a.snapshot.created, a.snapshot.id) < (b.snapshot.created, b.snapshot.id)
        }
        func largest(_ key: @escaping (SnapshotRow) -> UInt64?) -> (SnapshotRow, SnapshotRow) -> Bool {
            { a, b in
                let x = key(a).map { Int128($0) } ?? -1, y = key(b).map { Int128($0) } ?? -1
                return x != y ? x > y : byCreated(a, b)
            }
        }
        func ascending(_ key: @escaping (SnapshotRow) -> String) -> (SnapshotRow, SnapshotRow) -> Bool {
            { a, b in key(a) != key(b) ? key(a) < key(b) : byCreated(a, b) }
        }
        switch name {
        case "CREATED": return byCreated
        case "ID": return { ($0.snapshot.id, $0.filesystem.uuid) < ($1.snapshot.id, $1.filesystem.uuid) }
        case "EXCL": return largest(\.snapshot.exclusive)
        case "RFER": return largest(\.snapshot.referenced)
        case "NUMBER":
            return { a, b in
                let x = a.snapshot.metadata.number ?? Int.max, y = b.snapshot.metadata.number ?? Int.max
                return x != y ? x < y : a.number != b.number ? a.number < b.number : byCreated(a, b)
            }
        case "PATH": return ascending(\.path)
        case "SOURCE": return ascending { $0.source ?? "" }
        case "MANAGER": return ascending(\.snapshot.metadata.manager.rawValue)
        case "DESCRIPTION": return ascending { $0.snapshot.metadata.description ?? "" }
        default:
            throw UsageError(
                "cannot sort by '\(sort ?? "")' (known: CREATED, ID, EXCL, RFER, NUMBER, PATH, SOURCE, MANAGER, DESCRIPTION)"
            )
        }
    }
}

private extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
