import ArgumentParser
import CarveCore

/// What carve's man pages take from the code rather than from prose: every
/// command and option (ArgumentParser's tool info) and the exit-code table.
/// Scripts/man renders pages from it, and the manual tests regenerate from it,
/// so a page cannot silently drift from the code.
public enum ManualData {
    /// One JSON document: `exitStatuses`, `toolInfo`.
    public static func json() -> String {
        let tables = JSONValue.object([
            ("exitStatuses", .array(ExitStatus.allCases.map(exitStatus))),
        ]).rendered()
        // The tool info is already JSON; splice it in rather than re-model it.
        let toolInfo = CarveCommand._dumpHelp().trimmingTrailingNewline()
        return String(tables.dropLast()).trimmingTrailingNewline() + ",\n   \"toolInfo\": " + toolInfo + "\n}\n"
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
