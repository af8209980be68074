import CarveTestSupport
import Foundation
import Testing

/// `carve snapshots thin --until-available` on a real loop btrfs, judged by df(1).
@Suite(.serialized, .enabled(if: Integration.enabled, "needs root and loop devices"))
struct UntilAvailableIntegrationTests {
    static let snapshotBytes: Int64 = 45 << 20

    /// df's Size and Avail in bytes: the reference for the figure carve aims at.
    static func df(_ mountpoint: String) throws -> (size: Int64, available: Int64) {
        let lines = try Shell.check(["df", "-B1", "--output=size,avail", mountpoint]).split(separator: "\n")
        let fields = try #require(lines.last).split(separator: " ").compactMap { Int64($0) }
        try #require(fields.count == 2, "df: \(lines)")
        return (fields[0], fields[1])
    }

    @Test func thinKeepsHalfTheDiskAvailableDeletingTheOldestAndNoMore() throws {
        try withDeletionDisk(size: "1G") { disk in
            let names = (1...12).map { String(format: "s%02d", $0) }
            for name in names { try disk.snapshot(name, mebibytes: 45, exclusive: true) }
            try Shell.check(["btrfs", "filesystem", "sync", disk.mountpoint])
            let before = try Self.df(disk.mountpoint)
            let target = (before.size + 1) / 2
            #expect(before.available < target, "the disk must start short of 50%: \(before)")

            let result = try disk.carve([
                "snapshots", "thin", disk.mountpoint, "--until-available", "50%", "--yes", "--wait",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let after = try Self.df(disk.mountpoint)
            #expect(after.available >= target, "df says \(after.available) available, \(target) asked for")
            // The oldest went, in order, and no more than one beyond what df says was needed:
            // with two fewer deletions the target would not hold.
            let left = try disk.subvolumes().filter { $0.hasPrefix("snaps/") }.map { String($0.dropFirst(6)) }
            let deleted = names.count - left.count
            #expect(left == Array(names.suffix(left.count)), "left: \(left)")
            #expect(deleted >= 1)
            #expect(after.available - 2 * Self.snapshotBytes < target, "deleted \(deleted): \(after) before \(before)")
            #expect(result.stderr.contains("the target of 50% (512M) holds"), "\(result.stderr)")

            let again = try disk.carve([
                "snapshots", "thin", disk.mountpoint, "--until-available", "50%", "--yes", "--wait",
            ])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stdout.hasPrefix("nothing to delete: ") && again.stdout.split(separator: "\n").count == 1)
            #expect(try disk.subvolumes().count == left.count + 1)

            let unreachable = try disk.carve([
                "snapshots", "thin", disk.mountpoint, "--until-available", "99%", "--yes",
            ])
            #expect(unreachable.status == 1, "\(unreachable.stderr)")
            #expect(unreachable.stderr.contains("short of the 99% ("), "\(unreachable.stderr)")
            #expect(try disk.subvolumes().count == left.count + 1)

            let larger = try disk.carve(["snapshots", "thin", disk.mountpoint, "--until-available", "2GiB", "--yes"])
            #expect(larger.status == 64)
            #expect(larger.stderr.contains("invalid value '2GiB' for --until-available: larger than"))
            #expect(try disk.subvolumes().count == left.count + 1)
        }
    }

    /// --max-count on the real disk: the oldest N go, the rest stay for a later run.
    @Test func maxCountDeletesTheOldestN() throws {
        try withDeletionDisk(size: "512M") { disk in
            for index in 1...5 { try disk.snapshot("s\(index)") }
            let result = try disk.carve([
                "snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--max-count", "2", "--yes",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try disk.subvolumes() == ["data", "snaps/s3", "snaps/s4", "snaps/s5"])
            #expect(result.stderr.contains("--max-count 2: 3 more snapshots are left for a later run"))
        }
    }
}
