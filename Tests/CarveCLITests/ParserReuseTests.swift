import ArgumentParser
@testable import CarveCLI
import Testing

/// The argument parser keeps each command's argument definitions once built
/// (Vendor/swift-argument-parser/PATCHED.md): what one parse found never reaches
/// the next, and help, version and errors read as they did on a first parse.
struct ParserReuseTests {
    @Test func aParseTakesNoValueFromTheParseBefore() throws {
        let first = try #require(
            try CarveCommand.parseAsRoot(["devices", "--json", "-o", "NAME,SIZE", "--bytes", "/dev/a"])
                as? DevicesCommand)
        #expect(first.options.json && first.options.bytes && first.options.output == "NAME,SIZE")
        let second = try #require(try CarveCommand.parseAsRoot(["devices", "/dev/b"]) as? DevicesCommand)
        #expect(!second.options.json && !second.options.bytes && second.options.output == nil)
        #expect(second.devices == ["/dev/b"])
        let list = try #require(try CarveCommand.parseAsRoot(["snapshots", "list", "--json"]) as? SnapshotsListCommand)
        let plain = try #require(try CarveCommand.parseAsRoot(["snapshots", "list"]) as? SnapshotsListCommand)
        #expect(String(describing: list) != String(describing: plain))
        #expect(String(describing: plain) == String(describing: try CarveCommand.parseAsRoot(["snapshots", "list"])))
    }

    /// Help, version and usage errors after other parses, flags anywhere on the line.
    @Test func builtInFlagsAreFoundWhereverTheyStand() {
        let help = CommandTree.carve(["devices", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: carve devices"))
        _ = CommandTree.carve(["devices", "--json", "/dev/a"])
        for arguments in [["devices", "/dev/a", "--help"], ["devices", "-h"], ["help", "devices"]] {
            let again = CommandTree.carve(arguments)
            #expect(again.status == 0 && again.stdout == help.stdout, "\(arguments)")
        }
        let version = CommandTree.carve(["devices", "--version"])
        #expect(version.status == 0 && version.stdout == CarveCommand.version + "\n")
        let unknown = CommandTree.carve(["devices", "--no-such-flag"])
        #expect(unknown.status == 64 && unknown.stderr.hasPrefix("carve: Unknown option '--no-such-flag'"))
    }
}
