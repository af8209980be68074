import CarveCore
import Foundation

/// A throw-away restic repository whose snapshots carry chosen times, and restic's
/// own `forget --dry-run` verdicts on them: the oracle carve's retention is held to.
/// Every restic call runs in `timeZone` (restic reads `--time` and counts days there).
public final class ResticOracle {
    public let directory: String
    public let timeZone: String
    private var environment: [String: String] {
        [
            "RESTIC_PASSWORD": "carve-oracle", "RESTIC_REPOSITORY": directory + "/repo", "TZ": timeZone,
            "RESTIC_CACHE_DIR": directory + "/cache",
        ]
    }

    /// One restic snapshot: its id, group (the host) and time as restic stored it.
    public struct Snapshot: Sendable, Hashable {
        public var id: String
        public var host: String
        public var time: Date
    }

    public init(timeZone: String) throws {
        self.timeZone = timeZone
        directory = try Shell.check(["mktemp", "-d", "/tmp/carve-restic-XXXXXX"]).trimmingCharacters(
            in: .whitespacesAndNewlines)
        try FileManager.default.createDirectory(atPath: directory + "/data", withIntermediateDirectories: true)
        try Data("x\n".utf8).write(to: URL(fileURLWithPath: directory + "/data/file"))
        try restic(["init", "-q"])
    }

    deinit { _ = try? Shell.run(["rm", "-rf", directory]) }

    /// Makes one snapshot per (host, local wall time "YYYY-MM-DD HH:MM:SS"), two restic
    /// processes at a time (each spends half a second deriving its key).
    public func backup(_ times: [(host: String, wallTime: String)]) throws {
        let halves = [
            times.enumerated().filter { $0.offset % 2 == 0 }, times.enumerated().filter { $0.offset % 2 == 1 },
        ]
        let scripts = halves.map { half in
            half.map {
                "restic backup -q --host '\($0.element.host)' --time '\($0.element.wallTime)' '\(directory)/data' || exit 1"
            }
            .joined(separator: "\n")
        }
        let result = try Shell.run(
            ["sh", "-c", "(\(scripts[0])) & a=$!; (\(scripts[1])) || exit 1; wait $a"], environment: environment)
        guard result.status == 0 else { throw Shell.Failure(command: ["restic", "backup"], result: result) }
    }

    public func snapshots() throws -> [Snapshot] {
        let objects = try jsonArray(try restic(["snapshots", "--json"]))
        return try objects.map(Self.snapshot)
    }

    /// The ids restic's `forget --dry-run` keeps with these `--keep-*` arguments.
    public func kept(_ arguments: [String]) throws -> Set<String> {
        let groups = try jsonArray(try restic(["forget", "--dry-run", "--json"] + arguments))
        var kept = Set<String>()
        for group in groups {
            for object in group["keep"] as? [[String: Any]] ?? [] { kept.insert(try Self.snapshot(object).id) }
        }
        return kept
    }

    @discardableResult
    private func restic(_ arguments: [String]) throws -> String {
        let result = try Shell.run(["restic"] + arguments, environment: environment)
        guard result.status == 0 else { throw Shell.Failure(command: ["restic"] + arguments, result: result) }
        return result.stdout
    }

    private func jsonArray(_ text: String) throws -> [[String: Any]] {
        // `forget` prints its JSON on the last line.
        let line = text.split(separator: "\n").last.map(String.init) ?? "[]"
        guard let array = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [[String: Any]] else {
            throw Shell.Failure(
                command: ["restic"], result: Shell.Result(status: 0, stdout: text, stderr: "not a JSON array"))
        }
        return array
    }

    private static func snapshot(_ object: [String: Any]) throws -> Snapshot {
        guard let id = object["id"] as? String, let host = object["hostname"] as? String,
            let time = object["time"] as? String
        else {
            throw Shell.Failure(
                command: ["restic"], result: Shell.Result(status: 0, stdout: "\(object)", stderr: "no id/hostname/time")
            )
        }
        return Snapshot(id: id, host: host, time: try DateArgument.parse(time, timeZone: .utc))
    }
}
