import CarveTestSupport
import Foundation
import Testing

/// `carve snapshots thin` on real loop-backed btrfs with quotas on and off.
@Suite(.serialized, .enabled(if: Integration.enabled, "needs root and loop devices"))
struct SnapshotsThinIntegrationTests {
    @Test func thinDeletesTheOldestUntilTheQuotaEstimateReachesTheTarget() throws {
        try withDeletionDisk(quotas: true) { disk in
            for index in 1...6 { try disk.snapshot("s\(index)", mebibytes: 8, exclusive: true) }
            try Shell.check(["sync"])
            try Shell.check(["btrfs", "quota", "rescan", "-w", disk.mountpoint])
            let short = try disk.carve(["snapshots", "thin", disk.mountpoint, "--free", "1G", "--yes"])
            #expect(short.status == 1)
            #expect(short.stderr.contains("less than the 1G asked for; nothing deleted"))
            let result = try disk.carve(["snapshots", "thin", disk.mountpoint, "--free", "20M", "--yes", "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try disk.subvolumes() == ["data", "snaps/s4", "snaps/s5", "snaps/s6"])
            let largest = try disk.carve(["snapshots", "thin", disk.mountpoint, "--free", "1M", "--order", "largest", "--yes"])
            #expect(largest.status == 0, "\(largest.stderr)")
            #expect(try disk.subvolumes().count == 3)
        }
    }

    @Test func withQuotasOffThinDeletesNothing() throws {
        try withDeletionDisk { disk in
            try disk.snapshot("s1", mebibytes: 1)
            let result = try disk.carve(["snapshots", "thin", disk.mountpoint, "--free", "1M", "--yes"])
            #expect(result.status == 1)
            #expect(result.stderr.contains("cannot estimate"))
            #expect(result.stderr.contains("btrfs quota enable"))
            #expect(try disk.subvolumes() == ["data", "snaps/s1"])
        }
    }
}
