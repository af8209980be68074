import CarveCore

/// What `carve snapshots pinned` prints, and `delete`/`thin --dry-run --pinned` after
/// their plan: per filesystem the largest files as a table, what the rows left out
/// hold, and the total they add up to, or the same as JSON.
struct PinnedFilesView {
    /// Rows shown by default in the table: a screenful. JSON has every row by default.
    static let screenful = 20

    let columns: [Column<PinnedFile>]
    /// `--output` was given: JSON then has those columns only.
    let chosenColumns: Bool
    /// `--top`: nil for the default, 0 for every row.
    let top: Int?
    let bytes: Bool

    /// The default columns and rows (`delete --dry-run --pinned`).
    init() {
        columns = PinnedColumns.defaults.compactMap { name in PinnedColumns.all.first { $0.name == name } }
        chosenColumns = false; top = nil; bytes = false
    }

    /// Checks `--output` and `--top` before anything is read.
    init(output: String?, top: Int?, bytes: Bool) throws(UsageError) {
        columns = try selectColumns(output, from: PinnedColumns.all, defaults: PinnedColumns.defaults)
        chosenColumns = output != nil
        if let top, top < 0 { throw UsageError("invalid value '\(top)' for --top: give 0 (every file) or more") }
        self.top = top; self.bytes = bytes
    }

    /// `--output help`: the columns and what they hold.
    static func columnHelp(to out: any OutputSink) {
        for column in PinnedColumns.all { out.line("\(column.name.padding(10)) \(column.help)") }
    }

    private func shown(_ count: Int, json: Bool) -> Int {
        guard let top else { return json ? count : min(count, Self.screenful) }
        return top == 0 ? count : min(count, top)
    }

    private func size(_ value: UInt64) -> String { bytes ? "\(value) bytes" : ByteSize.format(value) }

    // MARK: text

    func text(_ sets: [PinnedSet]) -> String {
        sets.map { set in (sets.count > 1 ? "\(escapedForTable(set.filesystem.mountpoint)):\n" : "") + text(set) }
            .joined(separator: "\n")
    }

    private func text(_ set: PinnedSet) -> String {
        let pinned = set.pinned
        let reclaim = pinned.reclaim
        let range =
            reclaim.metadataAtLeast == reclaim.metadataAtMost
            ? size(reclaim.metadataAtMost)
            : "\(size(reclaim.metadataAtLeast)) to \(size(reclaim.metadataAtMost))"
        let metadata =
            "\(range) of tree blocks"
            + (reclaim.inline > 0 ? " (\(size(reclaim.inline)) of them inline file data)" : "")
            + (pinned.checksumBytes > 0 ? " and up to \(size(pinned.checksumBytes)) of checksums" : "")
            + " (metadata, estimate)"
        guard reclaim.data > 0 else {
            let (verb, pronoun) = set.snapshots.count == 1 ? ("pins", "it") : ("pin", "them")
            return
                "\(Self.subject(set).capitalizedFirst) \(verb) no file data: deleting \(pronoun) frees only \(metadata)\n"
        }
        let count = shown(pinned.files.count, json: false)
        var out = TextTable(columns: columns, rows: Array(pinned.files.prefix(count)), bytes: bytes).rendered()
        if count < pinned.files.count {
            let rest = pinned.files.dropFirst(count).reduce(0) { $0 + $1.bytes }
            out +=
                "\(count) of \(pinned.files.count) files shown (--top 0 shows all); the other "
                + "\(pinned.files.count - count) hold \(size(rest))\n"
        }
        if pinned.unattributed > 0 {
            out += "\(size(pinned.unattributed)) in no file carve found (a tree deleted while it was read)\n"
        }
        return out + "Deleting \(Self.subject(set)) frees \(size(reclaim.data)) of file data (exact) and \(metadata).\n"
    }

    /// "/mnt/snaps/s1" for one snapshot, "these 3 snapshots" for more.
    private static func subject(_ set: PinnedSet) -> String {
        set.snapshots.count == 1
            ? escapedForTable(set.snapshots[0].displayPath) : "these \(set.snapshots.count) snapshots"
    }

    // MARK: JSON

    /// `"filesystems": [...]`, one object per set.
    func json(_ sets: [PinnedSet]) -> (String, JSONValue) {
        ("filesystems", .array(sets.map(json)))
    }

    private func json(_ set: PinnedSet) -> JSONValue {
        let pinned = set.pinned
        let count = shown(pinned.files.count, json: true)
        let jsonColumns = chosenColumns ? columns : PinnedColumns.all
        return .object([
            ("filesystem", .string(set.filesystem.mountpoint)), ("uuid", .string(set.filesystem.uuid)),
            (
                "snapshots",
                .array(
                    set.snapshots.map { .object([("id", .uint($0.subvolume.id)), ("path", .string($0.displayPath))]) })
            ),
            ("reclaim", .uint(pinned.reclaim.data)), ("reclaim_data_exact", .bool(true)),
            ("metadata_estimate_min", .uint(pinned.reclaim.metadataAtLeast)),
            ("metadata_estimate_max", .uint(pinned.reclaim.metadataAtMost)),
            ("inline_bytes", .uint(pinned.reclaim.inline)),
            ("checksum_bytes_at_most", .uint(pinned.checksumBytes)),
            ("file_count", .int(pinned.files.count)),
            ("not_shown_bytes", .uint(pinned.files.dropFirst(count).reduce(0) { $0 + $1.bytes })),
            ("unattributed_bytes", .uint(pinned.unattributed)),
            (
                "files",
                .array(pinned.files.prefix(count).map { file in .object(jsonColumns.map { ($0.key, $0.json(file)) }) })
            ),
        ])
    }
}

extension String {
    fileprivate var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }

    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
