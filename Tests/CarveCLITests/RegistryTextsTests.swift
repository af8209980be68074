import ArgumentParser
import Foundation
import Testing
@testable import CarveCLI
import CarveCore
import CarveTestSupport

/// Every help text that states a fact says what the code that holds the fact says: the
/// exit statuses (`ExitStatus`, each command's `exitStatuses`), the protection rules
/// (`Protection.Rule`), the owners (`SnapshotOwners`), snapper's cleanup algorithms.
@Suite struct RegistryTextsTests {
    /// `--help` of `path`, its lines joined as one paragraph (ArgumentParser wraps them).
    func help(_ path: [String]) -> String {
        CommandTree.help(path, columns: 200).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    func words(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }

    @Test func theRootHelpListsEveryExitStatus() {
        let text = help(["carve"])
        #expect(text.contains(words(ExitStatus.summary())))
        for status in ExitStatus.allCases { #expect(text.contains("\(status.rawValue) \(status.phrase)")) }
    }

    @Test func commandsListTheExitStatusesTheyDeclare() {
        #expect(
            help(["carve", "snapshots", "delete"]).contains(
                words(ExitStatus.summary(SnapshotsDeleteCommand.exitStatuses))))
        #expect(help(["carve", "check"]).contains(words(ExitStatus.summary(CheckCommand.exitStatuses))))
        // The man pages list the same: they are made from ManualData.pageExitStatuses.
        let pages = CommandTree.commands().filter { $0.type.configuration.subcommands.isEmpty }.map {
            $0.path.joined(separator: "-")
        }
        #expect(ManualData.pageExitStatuses.map(\.0).sorted() == pages.sorted())
    }

    @Test func deleteHelpNamesEveryProtectionRule() {
        let text = help(["carve", "snapshots", "delete"])
        for rule in Protection.Rule.allCases { #expect(text.contains(words(rule.phrase)), "\(rule)") }
    }

    @Test func theManagerColumnAndSelectionNameEveryOwner() {
        let manager = SnapshotColumns.all.first { $0.name == "MANAGER" }
        for name in SnapshotOwners.names {
            #expect(manager?.help.contains(name) == true, "\(name)")
            #expect(help(["carve", "snapshots", "list"]).contains(name), "\(name)")
        }
    }

    @Test func cleanupAlgorithmsComeFromTheirEnum() {
        let text = help(["carve", "snapshots", "list"])
        #expect(text.contains("cleanup algorithm in info.xml: \(SnapperCleanup.names)"))
        let bad = CommandTree.carve(["snapshots", "list", "--cleanup", "weekly"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("(known: \(SnapperCleanup.names))"), "\(bad.stderr)")
    }
}
