import ArgumentParser
import CarveCore
import Foundation

extension SizeMode: ExpressibleByArgument {}

/// `carve snapshots list [PATH...]`: every btrfs snapshot of the filesystems holding
/// PATH (default: every mounted btrfs, each once), with its manager's metadata and
/// the space it holds, oldest first.
struct SnapshotsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List btrfs snapshots with their manager (snapper, timeshift, btrbk, plain) and the space they hold.",
        discussion: """
            Sizes come from btrfs quotas when they are enabled and consistent; otherwise, as \
            root, from the extent trees (--sizes exact), and else they are unknown and carve says \
            why on stderr (it never turns quotas on). --sizes none is fastest. Snapshots that \
            no mount reaches are listed with their path from the top level, as <FS_TREE>/path.

            Examples:
              $ carve snapshots list
              $ carve snapshots list / --manager snapper --older-than 30d --keep-last 5
              $ carve snapshots list /home --json
            """
    )

    @Argument(help: ArgumentHelp("Any path inside a btrfs filesystem (default: every mounted btrfs).", valueName: "path"), completion: .btrfsMountpoint)
    var paths: [String] = []

    @OptionGroup(title: "Selection")
    var selection: SelectionOptions

    @Option(help: ArgumentHelp(
        "How to find sizes: auto (default: quota when quotas are on and consistent, else exact), none (fastest), quota, or exact (reads every subvolume's extents; root).",
        valueName: "mode"))
    var sizes: SizeMode?

    @Flag(name: .customLong("all-subvolumes"), help: "Also list subvolumes that are not snapshots, marked as such.")
    var allSubvolumes = false

    @Flag(help: "Print JSON: {\"snapshots\": [...]}.")
    var json = false

    @Option(name: [.short, .long], help: ArgumentHelp(
        "Columns to show, comma separated; +COLS adds to the default ('--output help' lists them).", valueName: "columns"))
    var output: String?

    @Flag(name: [.short, .long], help: "Print sizes in bytes.")
    var bytes = false

    @Option(help: ArgumentHelp(
        "Sort by this column (default CREATED, oldest first; EXCL and RFER sort largest first).", valueName: "column"))
    var sort: String?

    func run() throws {
        let services = Services.current
        let out = services.output
        if output?.lowercased() == "help" {
            for column in SnapshotColumns.all { out.line("\(column.name.padding(12)) \(column.help)") }
            return
        }
        let chosen = try selectColumns(output, from: SnapshotColumns.all, defaults: SnapshotColumns.defaults)
        let sortColumn = try sortKey()
        let criteria = try selection.selection(timeZone: services.clock.timeZone)
        let mode = try sizeMode(services)

        var rows: [SnapshotRow] = []
        var exclusiveKnown = true
        var exact = ExactTotals()
        let listings = BackupChains.linked(try filesystems(services.snapshots).map { filesystem in
            try ScanProgressLine.around(services) { try services.snapshots.subvolumes(of: filesystem, sizes: mode) }
        }, backend: services.snapshots)
        for listing in listings {
            let filesystem = listing.filesystem
            if let scanned = listing.exact { out.note("\(filesystem.mountpoint): \(scanned.summary)") }
            for warning in listing.warnings { out.warn(warning) }
            if let note = listing.sizeNote { out.note(note) }
            // Positions, not copies: ten thousand selected snapshots are not held twice.
            let selected = select(criteria, in: listing, now: services.clock.now)
            exclusiveKnown = exclusiveKnown && selected.allSatisfy { listing.subvolumes[$0].exclusive != nil }
            if listing.exact != nil { exact.add(listing, selected: selected.map { listing.subvolumes[$0] }) }
            rows += SnapshotRow.rows(at: selected, of: listing, timeZone: services.clock.timeZone)
        }
        rows.sort(by: sortColumn)

        if json {
            writeJSON(rows, columns: output == nil ? SnapshotColumns.all : chosen, to: out, exact: exact.isEmpty ? nil : exact)
        } else if !rows.isEmpty {
            out.write(TextTable(columns: chosen, rows: rows, bytes: bytes).rendered())
        }
        out.note(summary(rows, exclusiveKnown: exclusiveKnown) + (exact.isEmpty ? "" : "; " + exact.clause(bytes: bytes)))
    }

    /// `{"snapshots": [...]}`, written one snapshot at a time: ten thousand snapshots
    /// never sit in memory as one document.
    func writeJSON(_ rows: [SnapshotRow], columns: [Column<SnapshotRow>], to out: any OutputSink, exact: ExactTotals? = nil) {
        guard !rows.isEmpty else {
            return out.line(JSONValue.object([("snapshots", .array([]))] + (exact.map { [("exact", $0.json)] } ?? [])).rendered())
        }
        out.write("{\n   \"snapshots\": [\n")
        let chunk = ByteWriter()
        let fast = SnapshotJSONWriter(columns: columns, level: 2)
        let layout = JSONObjectLayout(keys: columns.map(\.key), level: 2)
        var object: [UInt8] = []
        for (index, row) in rows.enumerated() {
            chunk.append("      ")
            append(row, columns: columns, to: chunk, fast: fast, layout: layout, scratch: &object)
            chunk.append(index < rows.count - 1 ? ",\n" : "\n")
            if chunk.count > 1 << 16 { out.write(chunk.takeText()) }
        }
        out.write(chunk.takeText() + "   ]" + (exact?.jsonMember ?? "") + "\n}\n")
    }

    /// One snapshot object: by the fast writer when it knows the columns, else by the
    /// shared layout; a row with a name that is not UTF-8 by the general writer, the
    /// one that adds `KEY_base64` members.
    private func append(_ row: SnapshotRow, columns: [Column<SnapshotRow>], to chunk: ByteWriter,
                        fast: SnapshotJSONWriter?, layout: JSONObjectLayout, scratch: inout [UInt8]) {
        scratch.removeAll(keepingCapacity: true)
        if let fast {
            let start = chunk.count
            fast.append(row, to: chunk)
            guard chunk.replacedCarriedBytes else { return }
            chunk.truncate(to: start)
            chunk.replacedCarriedBytes = false
        } else if !row.carriesBytes {
            layout.append(to: &scratch, level: 2) { columns[$0].json(row) }
            return chunk.append(scratch)
        }
        SnapshotColumns.snapshotJSON(row, columns: columns).append(to: &scratch, level: 2)
        chunk.append(scratch)
    }

    func sizeMode(_ services: Services) throws -> SizeMode {
        switch sizes {
        case .exact? where !services.isRoot:
            throw NeedsRootError("reading exact sizes (--sizes exact)")
        case .quota? where !services.isRoot:
            throw NeedsRootError("reading quota sizes (--sizes quota)")
        case let mode?: return mode
        case nil: return .auto
        }
    }

    /// The filesystems of the given paths, each once; every mounted btrfs without paths.
    func filesystems(_ backend: any SnapshotBackend) throws -> [Filesystem] {
        guard !paths.isEmpty else { return try backend.mountedFilesystems() }
        var found: [Filesystem] = []
        for path in paths {
            let filesystem = try backend.filesystem(named: path)
            if !found.contains(where: { $0.uuid == filesystem.uuid }) { found.append(filesystem) }
        }
        return found
    }

    /// The selected snapshots; with --all-subvolumes the plain subvolumes go through the same filters.
    /// Positions in `listing.subvolumes` of the selected snapshots.
    func select(_ criteria: SnapshotSelection, in listing: VolumeListing, now: Date) -> [Int] {
        guard allSubvolumes else { return criteria.selectedIndices(in: listing.subvolumes, now: now) }
        var everything = listing.subvolumes
        for index in everything.indices { everything[index].isSnapshot = true }
        return criteria.selectedIndices(in: everything, now: now)
    }

    func summary(_ rows: [SnapshotRow], exclusiveKnown: Bool) -> String {
        // Counted in place: copying ten thousand rows to count them doubled the peak memory.
        var count = 0
        var total: UInt64 = 0
        var uuids = Set<String>()
        for row in rows {
            uuids.insert(row.filesystem.uuid)
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
    func sortKey() throws -> (SnapshotRow, SnapshotRow) -> Bool {
        let name = (sort ?? "CREATED").uppercased()
        func byCreated(_ a: SnapshotRow, _ b: SnapshotRow) -> Bool { (a.snapshot.created, a.snapshot.id) < (b.snapshot.created, b.snapshot.id) }
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
        case "NUMBER": return { a, b in
            let x = a.snapshot.metadata.number ?? Int.max, y = b.snapshot.metadata.number ?? Int.max
            return x != y ? x < y : a.number != b.number ? a.number < b.number : byCreated(a, b)
        }
        case "PATH": return ascending(\.path)
        case "SOURCE": return ascending { $0.source ?? "" }
        case "MANAGER": return ascending(\.snapshot.metadata.manager.rawValue)
        case "DESCRIPTION": return ascending { $0.snapshot.metadata.description ?? "" }
        default:
            throw UsageError("cannot sort by '\(sort ?? "")' (known: CREATED, ID, EXCL, RFER, NUMBER, PATH, SOURCE, MANAGER, DESCRIPTION)")
        }
    }
}

private extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
