import CarveCore

/// The columns of `carve snapshots pinned` (and of `delete --dry-run --pinned`): the
/// text table, `--output` and the JSON keys of each file.
enum PinnedColumns {
    static let defaults = ["SIZE", "FIRST", "LAST", "LINKS", "PATH"]

    static let all: [Column<PinnedFile>] = [
        Column(
            "SIZE", key: "bytes",
            help: "bytes deleting the set frees for this file: on disk (compressed), exact", rightAligned: true,
            text: { file, bytes in bytes ? String(file.bytes) : ByteSize.format(file.bytes) },
            json: { .uint($0.bytes) }),
        Column(
            "FIRST", help: "the oldest snapshot of the set holding those bytes (JSON: its path)",
            text: { file, _ in escapedForTable(file.first.label) }, json: { .string($0.first.path) }),
        Column(
            "LAST", help: "the newest snapshot of the set holding those bytes (JSON: its path)",
            text: { file, _ in escapedForTable(file.last.label) }, json: { .string($0.last.path) }),
        Column(
            "LINKS", help: "its hard links (names), 0 when it has none left", rightAligned: true,
            text: { file, _ in String(file.links) }, json: { .int($0.links) }),
        Column(
            "PATH",
            help:
                "its path in SNAPSHOT (the newest holding it), <inode N in SNAPSHOT> when it has no name (JSON: null)",
            text: { file, _ in escapedForTable(file.displayPath) }, json: { .string($0.path) }),
        Column(
            "SNAPSHOT", help: "the snapshot PATH is in", text: { file, _ in escapedForTable(file.namedIn.path) },
            json: { .string($0.namedIn.path) }),
        Column(
            "INODE", help: "its inode number (the same in every snapshot of one source)", rightAligned: true,
            text: { file, _ in String(file.inode) }, json: { .uint($0.inode) }),
        Column(
            "EXTENTS", help: "the data extents its bytes are in", rightAligned: true,
            text: { file, _ in String(file.extents) }, json: { .int($0.extents) }),
    ]
}
