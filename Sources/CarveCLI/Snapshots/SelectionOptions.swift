import ArgumentParser
import CarveCore
import CarveLinux

/// SELECTION, shared by `snapshots list`, `delete` and `thin` through `@OptionGroup`.
/// Values are parsed by the core parsers so errors read the same everywhere.
struct SelectionOptions: ParsableArguments {
    @Option(
        name: .customLong("older-than"), parsing: .unconditional,
        help: ArgumentHelp(
            "Only snapshots taken longer ago than this: 90min, 36h, 30d, 8w, 6m (months), 1y6m.", valueName: "duration")
    )
    var olderThan: String?

    @Option(
        help: ArgumentHelp(
            "Only snapshots created before this time: 2026-11-01, '2026-11-01 12:00', ISO 8601; local time without an offset.",
            valueName: "date"))
    var before: String?

    @Option(help: ArgumentHelp("Only snapshots created after this time (same forms as --before).", valueName: "date"))
    var after: String?

    @Option(
        help: ArgumentHelp(
            "Only snapshots whose path, name or description matches this shell glob.", valueName: "glob"))
    var match: String?

    @Option(
        help: ArgumentHelp(
            "Only snapshots of this owner: \(SnapshotOwners.managerNames.joined(separator: ", ")), plain, or a container engine: \(SnapshotOwners.engineNames.joined(separator: ", ")) (repeatable).",
            valueName: "manager"))
    var manager: [String] = []

    @Option(
        help: ArgumentHelp(
            "Only snapshots of this source subvolume: a mounted path, a path from the top level, or an id (repeatable).",
            valueName: "subvolume"))
    var source: [String] = []

    @Option(
        help: ArgumentHelp(
            "Only snapper snapshots with this cleanup algorithm in info.xml: \(SnapperCleanup.names) (repeatable).",
            valueName: "algorithm"))
    var cleanup: [String] = []

    @Flag(
        name: .customLong("split-pairs"),
        help:
            "Let the selection take one half of a snapper pre/post pair (by default a pair the criteria split is kept whole)."
    )
    var splitPairs = false

    @OptionGroup(title: "Retention (per source subvolume or snapper config; kept snapshots are left out)")
    var retention: RetentionOptions

    @Flag(help: "Select every snapshot (needed by delete when no other selection option is given).")
    var all = false

    /// The selection as the core applies it; a `UsageError` naming the bad value.
    /// Dates without an offset are read in `timeZone` (the clock's).
    func selection(timeZone: TimeZone = .current) throws(UsageError) -> SnapshotSelection {
        var selection = SnapshotSelection(all: all, timeZone: timeZone)
        if let olderThan { selection.olderThan = try TimeSpan.parse(olderThan) }
        if let before { selection.before = try DateArgument.parse(before, timeZone: timeZone) }
        if let after { selection.after = try DateArgument.parse(after, timeZone: timeZone) }
        if let match { selection.match = try Glob(match) }
        for name in manager {
            guard let parsed = SnapshotManager(known: name.lowercased()) else {
                let known = SnapshotManager.allCases.map(\.rawValue).joined(separator: ", ")
                throw UsageError("invalid manager '\(name)' for --manager (known: \(known))")
            }
            selection.managers.insert(parsed)
        }
        selection.sources = source
        for algorithm in cleanup {
            guard SnapperCleanup(rawValue: algorithm) != nil else {
                throw UsageError(
                    "invalid cleanup algorithm '\(algorithm)' for --cleanup (known: \(SnapperCleanup.names))")
            }
            selection.cleanup.insert(algorithm)
        }
        selection.splitPairs = splitPairs
        selection.retention = try retention.policy()
        if let before = selection.before, let after = selection.after, after >= before {
            throw UsageError(
                "--after \(self.after ?? "") is not earlier than --before \(self.before ?? ""): nothing could match")
        }
        return selection
    }
}
