import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// `--cleanup` against snapper itself: snapper makes timeline, number and pre/post
/// snapshots (under faketime, on past dates) and `snapper list` is the oracle for
/// which carve selects; a filter that splits a pre/post pair keeps both halves.
@Suite(
    .serialized,
    .integration(needing: "snapper", "faketime"))
struct SnapperCleanupIntegrationTests {
    func snapper(_ config: String, _ arguments: [String], at time: String) throws -> String {
        try Shell.check(["faketime", time, "snapper", "--no-dbus", "-c", config] + arguments)
    }

    /// snapper's own list: number → (cleanup, type).
    func snapperList(_ config: String) throws -> [Int: (cleanup: String, type: String)] {
        let csv = try Shell.check([
            "snapper", "--no-dbus", "-c", config, "--csvout", "list", "--columns", "number,cleanup,type",
        ])
        var rows: [Int: (String, String)] = [:]
        for line in csv.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            if fields.count == 3, let number = Int(fields[0]), number != 0 { rows[number] = (fields[1], fields[2]) }
        }
        return rows
    }

    func carveNumbers(_ disk: DeletionDisk, _ options: [String]) throws -> (numbers: [Int], stderr: String) {
        let result = try disk.carve(["snapshots", "list", disk.mountpoint, "--sizes", "none", "--json"] + options)
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try DeletionDisk.json(result)["snapshots"] as? [[String: Any]] ?? []
        return (rows.compactMap { $0["number"] as? Int }.sorted(), result.stderr)
    }

    @Test func cleanupSelectsWhatSnapperRecordedAndPairsStayWhole() throws {
        try withDeletionDisk { disk in
            try withSnapperConfig(on: disk) { config in
                for day in 1...6 {
                    _ = try snapper(
                        config, ["create", "-c", "timeline", "-d", "timeline"],
                        at: String(format: "2026-10-%02d 10:00:00", day))
                }
                _ = try snapper(config, ["create", "-c", "number", "-d", "by number"], at: "2026-10-07 10:00:00")
                let pre = try snapper(
                    config, ["create", "-t", "pre", "-c", "number", "-p", "-d", "apt"], at: "2026-10-08 10:00:00")
                let preNumber = try #require(Int(pre.trimmingCharacters(in: .whitespacesAndNewlines)))
                _ = try snapper(
                    config, ["create", "-t", "post", "--pre-number", "\(preNumber)", "-c", "number", "-d", "apt"],
                    at: "2026-10-20 10:00:00")

                let recorded = try snapperList(config)
                for algorithm in ["timeline", "number"] {
                    let expected = recorded.filter { $0.value.cleanup == algorithm }.keys.sorted()
                    #expect(
                        try carveNumbers(disk, ["--cleanup", algorithm]).numbers == expected,
                        "\(algorithm): snapper \(recorded)")
                }
                // Dated by info.xml: the six timeline snapshots are October's, not today's.
                let old = try carveNumbers(disk, ["--cleanup", "timeline", "--before", "2026-10-04"]).numbers
                #expect(old == recorded.filter { $0.value.cleanup == "timeline" }.keys.sorted().prefix(3).map { $0 })

                // Older than Oct 15 takes the pre and not its post: both stay, and carve says which.
                let split = try carveNumbers(disk, ["--cleanup", "number", "--before", "2026-10-15"])
                #expect(!split.numbers.contains(preNumber))
                #expect(
                    split.stderr.contains(
                        "snapper pre/post pair \(config):\(preNumber)/\(preNumber + 1): only \(preNumber) is selected"),
                    "\(split.stderr)")
                #expect(
                    try carveNumbers(disk, ["--cleanup", "number", "--before", "2026-10-15", "--split-pairs"]).numbers
                        .contains(preNumber))
            }
        }
    }
}
