@testable import CarveCLI
import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// `carve snapshots list --prometheus` in-process on the fake.
@Suite struct SnapshotMetricsCommandTests {
    typealias F = SnapshotFixtures

    func list(_ arguments: [String], backend: FakeSnapshotBackend = SnapshotsListCommandTests.backend()) -> RunResult {
        runCarve(["snapshots", "list"] + arguments) { captured in
            Services(
                devices: FakeDeviceSource(), snapshots: backend, clock: FixedClock(), output: captured, isRoot: true)
        }
    }

    @Test func everyFamilyHasHelpTypeAndOneSampleAGroup() {
        let result = list(["--prometheus"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let families = [
            "carve_snapshots", "carve_snapshot_exclusive_bytes", "carve_snapshot_oldest_timestamp_seconds",
            "carve_snapshot_newest_timestamp_seconds", "carve_filesystem_size_bytes",
            "carve_filesystem_available_bytes", "carve_scrape_timestamp_seconds",
        ]
        #expect(lines.filter { $0.hasPrefix("# TYPE ") } == families.map { "# TYPE \($0) gauge" })
        #expect(lines.filter { $0.hasPrefix("# HELP ") }.count == families.count)
        // One group each: snapper of /, btrbk of /mnt/@home, timeshift of /, plain of /mnt/@home.
        #expect(lines.contains(#"carve_snapshots{filesystem="/mnt",manager="snapper",source="/"} 1"#))
        #expect(lines.contains(#"carve_snapshots{filesystem="/mnt",manager="plain",source="/mnt/@home"} 1"#))
        #expect(lines.filter { $0.hasPrefix("carve_snapshots{") }.count == 4)
        #expect(
            lines.contains(
                #"carve_snapshot_exclusive_bytes{filesystem="/mnt",manager="timeshift",source="/"} \#(300 << 20)"#))
        let created = Int(F.epoch.timeIntervalSince1970) - 12 * 86_400
        #expect(
            lines.contains(
                #"carve_snapshot_newest_timestamp_seconds{filesystem="/mnt",manager="timeshift",source="/"} \#(created)"#
            ))
        #expect(lines.contains(#"carve_filesystem_size_bytes{filesystem="/mnt"} \#(100 << 30)"#))
        #expect(lines.last == "carve_scrape_timestamp_seconds \(Int(F.epoch.timeIntervalSince1970))")
    }

    /// Unknown sizes leave the family out: a 0 would say the snapshots hold nothing.
    @Test func unknownSizesAreLeftOutNeverZero() {
        let result = list(
            ["--prometheus", "--sizes", "quota"],
            backend: SnapshotsListCommandTests.backend(quotaProblem: "quotas are off on /mnt"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("carve_snapshot_exclusive_bytes"))
        #expect(result.stdout.contains("carve_snapshots{"))
    }

    /// A path may hold any byte: the value is the table's (\xHH for control characters,
    /// backslashes and bytes that are not UTF-8), then escaped as the format requires.
    @Test func labelValuesAreEscaped() {
        let odd = "we\"ird\nname\\" + String(Character(Unicode.Scalar(0x10FFFF)!))
        var source = F.subvolume(256, path: odd)
        source.mountedPath = "/mnt/" + odd
        let backend = FakeSnapshotBackend([
            .init(
                filesystem: F.filesystem(),
                subvolumes: [source, F.snapshot(300, path: "snaps/a", of: source, daysAgo: 1, exclusive: 4096)])
        ])
        let result = list(["--prometheus"], backend: backend)
        #expect(
            result.stdout.contains(
                #"carve_snapshots{filesystem="/mnt",manager="plain",source="/mnt/we\"ird\\x0aname\\x5c\\xff"} 1"#),
            "\(result.stdout)")
    }

    @Test(arguments: [["--json"], ["--compact"], ["--output", "ID"], ["--explain"], ["--sort", "EXCL"]])
    func anotherOutputIsAUsageError(extra: [String]) {
        let result = list(["--prometheus"] + extra)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("carve: --prometheus "), "\(result.stderr)")
    }
}
