import CarveTestSupport
import Foundation
import Testing

/// Every example in the README, the man pages and `--help` runs as written on a machine
/// like the one the docs describe, built on loop devices: a GPT disk (ext4, a btrfs with
/// quotas off, vfat, swap) whose btrfs holds snapper snapshots (made by snapper), a
/// timeshift snapshot and a plain one pinning 25G. Only the names of that machine are
/// put in for the docs' (`/dev/sda` is the loop disk, `/` its btrfs, `root:` its snapper
/// config, /var/log a scratch directory); options, values and shell text stay as written.
@Suite(
    .serialized,
    .integration(needing: "snapper", "script", "zfs-fuse"))
struct DocumentedExamplesTests {
    static var repository: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }
    static let layout = """
        label: gpt
        size=256MiB, type=L, name=data
        size=60GiB, type=L, name=pool
        size=128MiB, type=U, name="EFI system"
        size=64MiB, type=S, name=swap

        """

    /// The docs' machine, made anew for each example that deletes.
    final class Machine {
        let disk: LoopDisk
        var pool = ""
        let config = "carvetest\(UInt32.random(in: 0..<UInt32.max))"
        var configMade = false

        init() throws {
            disk = try LoopDisk(size: "100G", sfdisk: DocumentedExamplesTests.layout)
            do {
                try Shell.check(["mkfs.ext4", "-q", "-L", "my data", disk.partition(1)])
                try Shell.check(["mkfs.btrfs", "-q", "-f", "-L", "pool", disk.partition(2)])
                try Shell.check(["mkfs.vfat", "-n", "EFI", disk.partition(3)])
                try Shell.check(["mkswap", "-q", "-L", "swap", disk.partition(4)])
                try disk.mount(disk.partition(1), name: "data")
                pool = try disk.mount(disk.partition(2), name: "pool")
                try populate()
            } catch {
                cleanup()
                throw error
            }
        }

        func populate() throws {
            for name in ["home", "data", "snaps"] {
                try Shell.check(["btrfs", "-q", "subvolume", "create", pool + "/" + name])
            }
            try Shell.check(["snapper", "--no-dbus", "-c", config, "create-config", pool])
            configMade = true
            for number in 1...18 {
                try "\(number)\n".write(toFile: pool + "/data/f\(number)", atomically: false, encoding: .utf8)
                try Shell.check(["snapper", "--no-dbus", "-c", config, "create", "-d", "example \(number)"])
            }
            let date = pool + "/timeshift-btrfs/snapshots/2026-10-01_12-00-01"
            try FileManager.default.createDirectory(atPath: date, withIntermediateDirectories: true)
            try Shell.check(["btrfs", "-q", "subvolume", "snapshot", "-r", pool + "/data", date + "/@"])
            try #"{"created": "1790856001", "tags": "D", "comments": "example"}"#
                .write(toFile: date + "/info.json", atomically: false, encoding: .utf8)
            // 25G that only a snapshot holds, without writing it: thin --free 20G has its room.
            try Shell.check(["fallocate", "-l", "25G", pool + "/home/big"])
            try Shell.check(["btrfs", "-q", "subvolume", "snapshot", "-r", pool + "/home", pool + "/snaps/home.1"])
            try FileManager.default.removeItem(atPath: pool + "/home/big")
            // Newer snapshots of home, so --keep-last 3 leaves the big one to thin.
            for number in 2...4 {
                try Shell.check([
                    "btrfs", "-q", "subvolume", "snapshot", "-r", pool + "/home", pool + "/snaps/home.\(number)",
                ])
            }
            try Shell.check(["btrfs", "filesystem", "sync", pool])
        }

        func cleanup() {
            if configMade {
                // The config's leftovers first: snapper's delete-config trips on numbers without a snapshot.
                let snapshots = pool + "/.snapshots"
                for name in (try? FileManager.default.contentsOfDirectory(atPath: snapshots)) ?? []
                where !FileManager.default.fileExists(atPath: snapshots + "/" + name + "/snapshot") {
                    try? FileManager.default.removeItem(atPath: snapshots + "/" + name)
                }
                let deleted = try? Shell.run(["snapper", "--no-dbus", "-c", config, "delete-config"])
                #expect(deleted?.status == 0, "snapper delete-config: \(deleted?.stderr ?? "did not run")")
            }
            disk.cleanup()
        }

        /// The example's text with this machine's names in place of the docs'.
        func substituted(_ text: String) -> String {
            var text = text
            let rules: [(String, String)] = [
                (#"/run/timeshift/backup"#, pool),
                (#"/tmp/carve-demo-[A-Za-z0-9]+/pool"#, pool),
                (#"/tmp/carve-demo-[A-Za-z0-9]+/data"#, disk.directory + "/data"),
                (#"/dev/loop[0-9]+p([0-9])"#, disk.device + "p$1"),
                (#"/dev/loop[0-9]+\b"#, disk.device),
                (#"/dev/sda([0-9])"#, disk.device + "p$1"),
                (#"/dev/sd[b-z]\b"#, disk.partition(2)),
                (#"/dev/sda\b"#, disk.device),
                (#"/var/log/"#, disk.directory + "/"),
                (#"/var/lib/prometheus/node-exporter/"#, disk.directory + "/"),
                (#"/usr/local/sbin/carve\b"#, "carve"),
                (#"\broot:([0-9])"#, config + ":$1"),
                // A filesystem path argument: the btrfs, as `/` is on the docs' machine.
                (#"(?<=\s)/(?=[\s;)]|$)"#, pool),
                (#"(?<=\s)/(home|backup|\.snapshots)\b"#, pool + "/$1"),
            ]
            for (pattern, replacement) in rules {
                text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
            }
            return text
        }

        /// Runs it under sh (at a terminal answering yes when it would ask), carve first on PATH.
        func run(_ example: DocumentedExample) throws -> Shell.Result {
            let script = substituted(example.text)
            let environment = [
                "PATH": URL(fileURLWithPath: CarveBinary.path).deletingLastPathComponent().path + ":"
                    + (ProcessInfo.processInfo.environment["PATH"] ?? ""),
                "CARVE_LOCK_FILE": disk.directory + "/carve.lock",
            ]
            if example.interactive {
                return try Shell.run(["script", "-qec", script, "/dev/null"], input: "y\n", environment: environment)
            }
            return try Shell.run(["sh", "-c", script], environment: environment)
        }
    }

    static func helps() throws -> [(String, String)] {
        try ["", "devices", "snapshots list", "snapshots delete", "snapshots thin", "snapshots pinned", "check"].map {
            command in
            let arguments = command.split(separator: " ").map(String.init) + ["--help"]
            return (command, try Shell.check([CarveBinary.path] + arguments))
        }
    }

    /// Exit statuses the docs promise for an example: a check may say it does not fit.
    static func expected(_ example: DocumentedExample) -> Set<Int32> {
        example.kind == .command && example.text.hasPrefix("carve check ") ? [0, 3] : [0]
    }

    @Test func theDocsHaveExamplesOfEveryCommand() throws {
        let examples = try DocumentedExample.all(repository: Self.repository, helps: Self.helps())
        // README tour and crontab, every page's EXAMPLES, every --help: a parser that found none would pass vacuously.
        #expect(examples.count >= 30, "\(examples.count) examples found")
        #expect(Set(examples.map { $0.source.split(separator: ":")[0] }).count >= 8)
        for command in ["devices", "snapshots list", "snapshots delete", "snapshots thin", "snapshots pinned", "check"]
        {
            #expect(examples.contains { $0.text.contains("carve \(command)") }, "no example of carve \(command)")
        }
        // What expectWhatQuietPromises holds the docs to must be there to hold them to.
        #expect(
            examples.contains { $0.kind == .script && $0.text.contains("--quiet --compact >> ") },
            "no cron line logging JSON Lines")
        #expect(examples.contains { $0.text.hasSuffix("--yes --quiet") }, "no quiet example")
    }

    /// The docs' ZFS pool `tank`, on zfs-fuse: `tank/home` with a month of zfs-auto-snapshot's
    /// dailies, `tank` with sanoid's.
    final class ZFSMachine {
        let zfs: ZFSFuse
        init() throws {
            zfs = try ZFSFuse()
            do {
                try zfs.pool("tank")
                try zfs.zfs("create", "tank/home")
                for day in 1...30 {
                    let date = "2026-10-\(day < 10 ? "0" : "")\(day)"
                    try zfs.zfs("snapshot", "tank/home@zfs-auto-snap_daily-\(date)-0000")
                    try zfs.zfs("snapshot", "tank@autosnap_\(date)_00:00:01_daily")
                }
            } catch {
                zfs.cleanup()
                throw error
            }
        }

        func run(_ example: DocumentedExample) throws -> Shell.Result {
            let path = URL(fileURLWithPath: CarveBinary.path).deletingLastPathComponent().path
            return try Shell.run(
                ["sh", "-c", example.text],
                environment: [
                    "PATH": path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? ""),
                    "CARVE_LOCK_FILE": zfs.directory + "/carve.lock",
                ])
        }
    }

    @Test func everyDocumentedExampleRunsAsWritten() throws {
        let examples = try DocumentedExample.all(repository: Self.repository, helps: Self.helps())
        // The ZFS examples name the pool `tank`: they run on one (none deletes without --dry-run).
        let zfsExamples = examples.filter { $0.text.contains(" tank") }
        #expect(!zfsExamples.isEmpty && !zfsExamples.contains(where: \.deletes))
        if !zfsExamples.isEmpty {
            let pool = try ZFSMachine()
            defer { pool.zfs.cleanup() }
            for example in zfsExamples {
                let result = try pool.run(example)
                #expect(
                    result.status == 0, "\(example.source): `\(example.text)` exited \(result.status): \(result.stderr)"
                )
            }
        }
        var machine = try Machine()
        defer { machine.cleanup() }
        // Listings and checks first, on one machine; each deleting example on a fresh one.
        let others = examples.filter { !$0.text.contains(" tank") }
        for example in others.filter({ !$0.deletes }) + others.filter(\.deletes) {
            if example.deletes {
                machine.cleanup()
                machine = try Machine()
            }
            let result = try machine.run(example)
            #expect(
                Self.expected(example).contains(result.status),
                "\(example.source): `\(machine.substituted(example.text))` exited \(result.status): \(result.stderr)\(result.stdout.suffix(300))"
            )
            try expectWhatQuietPromises(example, result, machine)
        }
    }

    /// A `--quiet` example that succeeds says nothing on stderr (nor on stdout without
    /// JSON); one appending `--compact` JSON to a log adds exactly one JSON line per run.
    func expectWhatQuietPromises(_ example: DocumentedExample, _ result: Shell.Result, _ machine: Machine) throws {
        guard example.text.contains("--quiet"), result.status == 0 else { return }
        #expect(result.stderr.isEmpty, "\(example.source): a quiet run wrote to stderr: \(result.stderr)")
        if !example.text.contains("--json") && !example.text.contains("--compact") {
            #expect(result.stdout.isEmpty, "\(example.source): a quiet run printed: \(result.stdout)")
        }
        let script = machine.substituted(example.text)
        guard example.text.contains("--compact"),
            let match = script.range(of: #"(?<=>> )\S+"#, options: .regularExpression)
        else { return }
        // Once more, with nothing left to do: it succeeds quietly and the log gains its second line.
        let again = try machine.run(example)
        #expect(again.status == 0 && again.stderr.isEmpty, "\(example.source), again: \(again.status) \(again.stderr)")
        let log = try String(contentsOfFile: String(script[match]), encoding: .utf8)
        let lines = log.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines.last == "", "\(example.source): two runs, two lines:\n\(log)")
        for line in lines.dropLast() {
            let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(json?["started"] is String && json?["carve_version"] is String, "\(example.source): \(line)")
        }
    }
}
