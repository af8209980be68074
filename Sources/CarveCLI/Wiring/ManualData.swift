import ArgumentParser
import CarveCore

/// What carve's man pages take from the code rather than from prose: every
/// command and option (ArgumentParser's tool info), the exit-code table, the
/// filesystem shrink table and the columns of the listings.
/// Scripts/man renders pages from it, and the manual tests regenerate from it,
/// so a page cannot silently drift from the code.
public enum ManualData {
    /// One JSON document: `exitStatuses`, `pageExitStatuses`, `shrinkRules`,
    /// `columns` (of `devices` and `snapshots list`), `toolInfo`.
    public static func json() -> String {
        let tables = JSONValue.object([
            ("version", .string(CarveCommand.version)),
            ("exitStatuses", .array(ExitStatus.allCases.map(exitStatus))),
            ("pageExitStatuses", .object(pageExitStatuses.map { ($0, .array($1.map { .int(Int64($0.rawValue)) })) })),
            ("shrinkRules", .array(ShrinkRule.table.map(shrinkRule))),
            (
                "columns",
                .object([
                    ("devices", columns(DeviceColumns.all, defaults: DeviceColumns.defaults)),
                    ("snapshots", columns(SnapshotColumns.all, defaults: SnapshotColumns.defaults)),
                ])
            ),
        ]).rendered()
        // The tool info is already JSON; splice it in rather than re-model it.
        let toolInfo = CarveCommand._dumpHelp().trimmingTrailingNewline()
        return String(tables.dropLast()).trimmingTrailingNewline() + ",\n   \"toolInfo\": " + toolInfo + "\n}\n"
    }

    /// Each command's page and the exit statuses it lists, from the command itself.
    static let pageExitStatuses: [(String, [ExitStatus])] = [
        ("carve-devices", DevicesCommand.exitStatuses), ("carve-snapshots-list", SnapshotsListCommand.exitStatuses),
        ("carve-snapshots-delete", SnapshotsDeleteCommand.exitStatuses),
        ("carve-snapshots-thin", SnapshotsThinCommand.exitStatuses),
        ("carve-snapshots-pinned", SnapshotsPinnedCommand.exitStatuses), ("carve-check", CheckCommand.exitStatuses),
    ]

    /// A listing's columns, as `--output` names them, with their JSON keys.
    private static func columns<Row>(_ all: [Column<Row>], defaults: [String]) -> JSONValue {
        .array(
            all.map { column in
                .object([
                    ("name", .string(column.name)), ("key", .string(column.key)), ("help", .string(column.help)),
                    ("default", .bool(defaults.contains(column.name))),
                ])
            })
    }

    private static func shrinkRule(_ rule: ShrinkRule) -> JSONValue {
        .object([
            ("types", .array(rule.types.map(JSONValue.string))), ("ability", .string(rule.ability.rawValue)),
            ("tool", .string(rule.tool)), ("note", .string(rule.note)),
        ])
    }

    private static func exitStatus(_ status: ExitStatus) -> JSONValue {
        .object([
            ("code", .int(Int64(status.rawValue))), ("name", .string("\(status)")),
            ("meaning", .string(status.meaning)),
        ])
    }

}

private extension String {
    func trimmingTrailingNewline() -> String {
        var text = self
        while text.last == "\n" { text.removeLast() }
        return text
    }
}
