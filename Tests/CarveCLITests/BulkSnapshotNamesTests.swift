import ArgumentParser
@testable import CarveCLI
import CarveCore
import Testing

/// Names set apart before parsing give the command exactly what ArgumentParser gives it.
struct BulkSnapshotNamesTests {
    /// The options with values as the command defines them, Selection and deletion groups included.
    @Test func theOptionsTakingValuesAreTheCommandsOwn() throws {
        let info = try ToolInfo.decode(ManualData.json())
        let delete = try #require(info.allCommands().first { $0.path == ["carve", "snapshots", "delete"] }?.command)
        let options = Set(
            (delete.arguments ?? []).filter { $0.kind == "option" }
                .flatMap { ($0.names ?? []).map { $0.kind == "long" ? "--" + $0.name : "-" + $0.name } })
        #expect(BulkSnapshotNames.optionsTakingValues == options)
    }

    @Test func namesSetApartAreTheNamesArgumentParserFinds() throws {
        let names = (0..<100).map { "/mnt/snaps/s\($0)" }
        let arguments =
            ["snapshots", "delete"] + names.prefix(40) + ["--filesystem", "/mnt", "--older-than", "30d", "-y"]
            + names.dropFirst(40) + ["--match", "x*", "--", "--odd-name", "-"]
        let bulk = try #require(BulkSnapshotNames.setApart(arguments))
        let parsed = try #require(try CarveCommand.parseAsRoot(arguments) as? SnapshotsDeleteCommand)
        #expect(bulk.names == parsed.named.snapshots)
        let rest = try #require(try CarveCommand.parseAsRoot(bulk.arguments) as? SnapshotsDeleteCommand)
        #expect(rest.named.snapshots.isEmpty && rest.named.filesystems == ["/mnt"] && rest.deletion.yes)
        #expect(BulkSnapshotNames.setApart(["snapshots", "delete", "/mnt/a"]) == nil)
        #expect(BulkSnapshotNames.setApart(["snapshots", "list"] + names) == nil)
    }
}
