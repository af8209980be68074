import CarveTestSupport
import Foundation
import Testing

/// Malformed invocations of every command against the built binary on a loop
/// btrfs: each must end with its documented code, one `carve:` line naming the
/// bad input (ArgumentParser's own errors add only the pointer to --help), no
/// Swift backtrace, nothing on stdout, and the filesystem exactly as it was.
@Suite(.serialized, .integration())
struct BadInputBatteryTests {
    /// One malformed invocation: the arguments, the exit code, and the text
    /// the message line must contain (the bad input, and the reason where it is ours).
    struct Case: CustomStringConvertible {
        let arguments: [String]
        let status: Int32
        let mentions: [String]
        init(_ arguments: [String], _ status: Int32 = 64, _ mentions: String...) {
            self.arguments = arguments; self.status = status; self.mentions = mentions
        }
        var description: String { arguments.joined(separator: " ") }
    }

    static func cases(mountpoint m: String, device: String, scratch: String) -> [Case] {
        let file = scratch + "/plain.txt", directory = scratch + "/adir", missing = scratch + "/missing"
        let list = ["snapshots", "list", m]
        let delete = ["snapshots", "delete", "--filesystem", m]
        let thin = ["snapshots", "thin", m]
        return [
            // devices
            Case(["devices", "--output", "NAME,NOPE"], 64, "'NOPE'", "unknown column"),
            Case(["devices", "--output", "SIZE,"], 64, "unknown column ''"),
            Case(["devices", "--output", "name;rm"], 64, "'name;rm'"),
            // A named device not found is lsblk's 32, not a usage error.
            Case(["devices", file], 32, file, "regular file"),
            Case(["devices", directory], 32, directory, "directory"),
            Case(["devices", "/dev/null"], 32, "/dev/null", "character device"),
            Case(["devices", missing], 32, missing, "no such file"),
            Case(["devices", "-J", "-P"], 64, "--json and --pairs are mutually exclusive"),
            Case(["devices", "--bogus"], 64, "'--bogus'"),
            // sizes, durations, dates and names given to the selection
            Case(list + ["--older-than", "30x"], 64, "'30x'", "unknown unit 'x'"),
            Case(list + ["--older-than", "-5d"], 64, "'-5d'"),
            Case(list + ["--older-than", ""], 64, "invalid duration ''"),
            Case(list + ["--older-than", "99999999999999999999d"], 64, "'99999999999999999999d'", "too large"),
            Case(list + ["--older-than", "1.5.3d"], 64, "'1.5.3d'"),
            Case(list + ["--older-than", "6"], 64, "'6'", "no unit"),
            Case(list + ["--older-than", "6mo"], 64, "'6mo'", "unknown unit 'mo'"),
            Case(list + ["--older-than", "1s"], 64, "'1s'", "seconds are not a unit"),
            Case(delete + ["--keep-daily", "-1", "--yes"], 64, "'-1'", "--keep-daily"),
            Case(delete + ["--keep-daily", "x", "--yes"], 64, "'x'"),
            Case(delete + ["--keep-within", "0", "--yes"], 64, "'0'", "no unit"),
            Case(delete + ["--keep-within", "0d", "--yes"], 64, "'0d'", "longer than zero"),
            Case(delete + ["--keep-weekly", "99999999999999999999", "--yes"], 64, "'99999999999999999999'"),
            Case(thin + ["--free", "1G", "--keep-monthly", "-3", "--yes"], 64, "'-3'", "--keep-monthly"),
            Case(list + ["--cleanup", "weekly"], 64, "'weekly'", "number, timeline, empty-pre-post"),
            Case(list + ["--before", "2026-13-01"], 64, "'2026-13-01'", "month 13"),
            Case(list + ["--before", "yesterday"], 64, "'yesterday'"),
            Case(list + ["--after", "2026-02-30"], 64, "'2026-02-30'", "day 30"),
            Case(list + ["--after", "2026-01-01 25:00"], 64, "'2026-01-01 25:00'"),
            Case(
                list + ["--before", "2020-01-01", "--after", "2021-01-01"], 64, "--after 2021-01-01",
                "--before 2020-01-01"),
            Case(list + ["--manager", "zfs"], 64, "'zfs'"),
            Case(list + ["--keep-last", "-1"], 64, "'-1'"),
            Case(list + ["--keep-last", "abc"], 64, "'abc'"),
            Case(list + ["--sizes", "huge"], 64, "'huge'"),
            Case(list + ["--output", "NAME,NOPE"], 64, "'NOPE'", "unknown column"),
            Case(list + ["--match", "["], 64, "'['"),
            Case(["snapshots", "list", missing], 64, missing, "no such file"),
            Case(["snapshots", "list", file], 64, file, "no btrfs snapshots"),
            Case(["snapshots", "list", "/proc"], 64, "/proc", "no btrfs snapshots"),
            Case(list + ["--bogus"], 64, "'--bogus'"),
            // delete: names, ids, configs, ranges, confirmation
            Case(["snapshots", "delete", "--yes"], 64, "no snapshots named"),
            Case(["snapshots", "delete", m + "/snaps/missing", "--yes"], 64, m + "/snaps/missing", "no such file"),
            Case(["snapshots", "delete", file, "--yes"], 64, file),
            Case(delete + ["--id", "abc", "--yes"], 64, "'abc'"),
            Case(delete + ["--id", "9999", "--yes"], 64, "--id 9999", "no subvolume"),
            Case(delete + ["--id", "5", "--yes"], 64, "--id 5"),
            Case(
                ["snapshots", "delete", "nosuchconfig:3"] + Array(delete.dropFirst(2)) + ["--yes"], 64,
                "nosuchconfig:3", "no snapper config"),
            Case(["snapshots", "delete", "root:17-3", "--yes"], 64, "'root:17-3'", "inverted range 17-3"),
            Case(["snapshots", "delete", "root:x", "--yes"], 64, "'root:x'"),
            Case(["snapshots", "delete", "root:", "--yes"], 64, "'root:'", "no number"),
            Case(["snapshots", "delete", ":3", "--yes"], 64, ":3"),
            Case(delete + ["--older-than", "3q", "--yes"], 64, "'3q'"),
            Case(delete + ["--all", "--keep-last", "x", "--yes"], 64, "'x'"),
            Case(delete + ["--all", "--lock-timeout", "-1", "--yes"], 64, "'-1", "--lock-timeout"),
            Case(delete + ["--all", "--lock-timeout", "abc", "--yes"], 64, "'abc'"),
            Case(delete + ["--all", "--manager", "apfs", "--yes"], 64, "'apfs'"),
            Case(["snapshots", "delete", "--filesystem", missing, "--all", "--yes"], 64, missing, "no such file"),
            Case(["snapshots", "delete", "--filesystem", file, "--all", "--yes"], 64, file, "no btrfs snapshots"),
            // thin: --free
            Case(thin + ["--free", "0", "--yes"], 64, "--free 0"),
            Case(thin + ["--free", "-5G", "--yes"], 64, "'-5G'"),
            Case(thin + ["--free", "10XB", "--yes"], 64, "'10XB'", "unknown unit 'XB'"),
            Case(thin + ["--free", "1.2.3G", "--yes"], 64, "'1.2.3G'"),
            Case(thin + ["--free", "", "--yes"], 64, "--free"),
            Case(thin + ["--free", "99999999E", "--yes"], 64, "'99999999E'"),
            Case(thin + ["--yes"], 64, "--free SIZE or --until-available"),
            Case(["snapshots", "thin", "--free", "1G", "--yes"], 64, "missing PATH"),
            // thin: --until-available (the disk is 1G)
            Case(thin + ["--until-available", "0", "--yes"], 64, "'0'", "--until-available"),
            Case(thin + ["--until-available", "-5%", "--yes"], 64, "'-5%'", "negative"),
            Case(thin + ["--until-available", "101%", "--yes"], 64, "'101%'", "more than 100%"),
            Case(thin + ["--until-available", "20 %", "--yes"], 64, "'20 %'", "no blanks"),
            Case(thin + ["--until-available", "abc", "--yes"], 64, "'abc'", "--until-available"),
            Case(thin + ["--until-available", "5G", "--yes"], 64, "'5G'", "larger than \(m)"),
            Case(thin + ["--free", "1G", "--until-available", "20%", "--yes"], 64, "one or the other"),
            Case(thin + ["--until-available", "20%", "--filesystem", m, "--yes"], 64, "PATH and --filesystem"),
            // --max-count, and list's outputs
            Case(delete + ["--all", "--max-count", "0", "--yes"], 64, "'0'", "--max-count"),
            Case(delete + ["--all", "--max-count", "-2", "--yes"], 64, "'-2'", "--max-count"),
            Case(thin + ["--free", "1G", "--max-count", "0", "--yes"], 64, "'0'", "--max-count"),
            Case(list + ["--prometheus", "--json"], 64, "--prometheus and --json"),
            Case(thin + ["--free", "1G", "--order", "weird", "--yes"], 64, "'weird'"),
            Case(["snapshots", "thin", file, "--free", "1G", "--yes"], 64, file, "no btrfs snapshots"),
            Case(["snapshots", "thin", missing, "--free", "1G", "--yes"], 64, missing),
            // check: sizes, devices, conflicting and missing operations
            Case(["check"], 64, "'<device>'"),
            Case(["check", device], 64, "--shrink-to", "--new-partition"),
            Case(["check", device, "--shrink-to", "1G", "--shrink-by", "1G"], 64, "exactly one of"),
            Case(["check", device, "--shrink-to", "10XB"], 64, "'10XB'"),
            Case(["check", device, "--shrink-to", "0"], 64, "--shrink-to 0"),
            Case(["check", device, "--shrink-to", "-1G"], 64, "'-1G'"),
            Case(["check", device, "--new-partition", "abc"], 64, "'abc'"),
            Case(["check", device, "--shrink-by", "100T"], 64, "100T", device),
            Case(["check", file, "--shrink-to", "1G"], 64, file, "regular file"),
            Case(["check", directory, "--shrink-to", "1G"], 64, directory, "directory"),
            Case(["check", "/dev/null", "--shrink-to", "1G"], 64, "/dev/null", "character device"),
            Case(["check", missing, "--shrink-to", "1G"], 64, missing, "no such file"),
            // the command tree itself
            Case(["nosuchcommand"], 64, "'nosuchcommand'"),
            Case(["snapshots", "purge"], 64, "'purge'"),
        ]
    }

    @Test func everyMalformedInvocationIsRefusedAndChangesNothing() throws {
        try withDeletionDisk { disk in
            try disk.snapshot("s1")
            try disk.snapshot("s2")
            let scratch = disk.disk.directory
            try Data("not a device\n".utf8).write(to: URL(fileURLWithPath: scratch + "/plain.txt"))
            try FileManager.default.createDirectory(atPath: scratch + "/adir", withIntermediateDirectories: true)
            let before = try Shell.check(["btrfs", "subvolume", "list", disk.mountpoint])
            let cases = Self.cases(mountpoint: disk.mountpoint, device: disk.disk.device, scratch: scratch)
            #expect(cases.count >= 50)
            for item in cases {
                let result = try disk.carve(item.arguments)
                #expect(result.status == item.status, "\(item): \(result.stderr)")
                #expect(result.stdout.isEmpty, "\(item): stdout \(result.stdout)")
                let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                let message = lines.first.map(String.init) ?? ""
                #expect(message.hasPrefix("carve: "), "\(item): \(result.stderr)")
                #expect(
                    lines.count == 1 || (lines.count == 2 && lines.last == "Try 'carve --help' for more information."),
                    "\(item): \(result.stderr)")
                for text in item.mentions { #expect(message.contains(text), "\(item): \(message) lacks \(text)") }
                for trace in ["Fatal error", "Stack dump", "backtrace", "Current stack trace"] {
                    #expect(!result.stderr.contains(trace), "\(item): \(result.stderr)")
                }
            }
            #expect(try Shell.check(["btrfs", "subvolume", "list", disk.mountpoint]) == before)
        }
    }
}
