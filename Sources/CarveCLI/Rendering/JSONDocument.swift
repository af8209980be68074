import CarveCore

extension JSONValue {
    /// A whole JSON document carve prints: `carve_version` first, so a log of many
    /// runs says which carve wrote each line. (Not `devices`, whose JSON is lsblk's.)
    /// Kept apart from JSONValue.swift, which the fuzz build compiles without the commands.
    static func document(_ members: [(String, JSONValue)]) -> JSONValue {
        .object([("carve_version", .string(CarveCommand.version))] + members)
    }
}
