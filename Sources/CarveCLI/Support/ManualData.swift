import ArgumentParser
import CarveCore

/// What carve's man pages take from the code rather than from prose: every
/// command and option (ArgumentParser's tool info), the exit-code table, the
/// filesystem shrink table and the columns of `carve devices`.
/// Scripts/man renders pages from it, and the manual tests regenerate from it,
/// so a page cannot silently drift from the code.
public enum ManualData {
    /// One JSON document: `exitStatuses`, `shrinkRules`,
    /// `deviceColumns`, `deviceDefaultColumns`, `toolInfo`.
    public static func json() -> String {
        let tables = JSONValue.object([
            ("exitStatuses", .array(ExitStatus.allCases.map(exitStatus))),
            ("shrinkRules", .array(ShrinkRule.table.map(shrinkRule))),
            ("deviceColumns", .array(DeviceColumns.all.map { column(name: $0.name, key: $0.key, help: $0.help) })),
            ("deviceDefaultColumns", .array(DeviceColumns.defaults.map(JSONValue.string))),
        ]).rendered()
        // The tool info is already JSON; splice it in rather than re-model it.
        let toolInfo = CarveCommand._dumpHelp().trimmingTrailingNewline()
        return String(tables.dropLast()).trimmingTrailingNewline() + ",\n   \"toolInfo\": " + toolInfo + "\n}\n"
    }

    private static func column(name: String, key: String, help: String) -> JSONValue {
        .object([("name", .string(name)), ("key", .string(key)), ("help", .string(help))])
    }

    private static func shrinkRule(_ rule: ShrinkRule) -> JSONValue {
        .object([
            ("types", .array(rule.types.map(JSONValue.string))), ("ability", .string(rule.ability.rawValue)),
            ("tool", .string(rule.tool)), ("note", .string(rule.note)),
        ])
    }

    private static func exitStatus(_ status: ExitStatus) -> JSONValue {
        .object([("code", .int(Int64(status.rawValue))), ("name", .string("\(status)")), ("meaning", .string(status.meaning))])
    }

}

private extension String {
    func trimmingTrailingNewline() -> String {
        var text = self
        while text.last == "\n" { text.removeLast() }
        return text
    }
}
