import CarveTestSupport
import Foundation
import Testing

/// `carve snapshots thin` on real loop-backed btrfs with quotas on and off.
@Suite(.serialized, .integration())
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
            let largest = try disk.carve([
                "snapshots", "thin", disk.mountpoint, "--free", "1M", "--order", "largest", "--yes",
            ])
            #expect(largest.status == 0, "\(largest.stderr)")
            #expect(try disk.subvolumes().count == 3)
        }
    }

    /// A default btrfs has quotas off: thin reads exact sizes by itself (--sizes auto), and
    /// with --sizes quota it deletes nothing and never says to turn quotas on.
    @Test func withQuotasOffThinReadsExactSizesByDefault() throws {
        try withDeletionDisk { disk in
            for index in 1...4 { try disk.snapshot("s\(index)", mebibytes: 8, exclusive: true) }
            try Shell.check(["sync"])
            let quota = try disk.carve([
                "snapshots", "thin", disk.mountpoint, "--free", "1M", "--sizes", "quota", "--yes",
            ])
            #expect(quota.status == 1)
            #expect(
                quota.stderr.contains("cannot estimate") && !quota.stderr.contains("quota enable"), "\(quota.stderr)")
            #expect(try disk.subvolumes().count == 5)
            let listed = try DeletionDisk.json(try disk.carve(["snapshots", "list", disk.mountpoint, "--json"]))
            let sizes = (listed["snapshots"] as? [[String: Any]] ?? []).map { $0["exclusive"] as? Int }
            #expect(sizes == Array(repeating: 8 << 20, count: 4), "\(sizes)")
            let result = try disk.carve(["snapshots", "thin", disk.mountpoint, "--free", "12M", "--yes"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try disk.subvolumes() == ["data", "snaps/s3", "snaps/s4"])
        }
    }
}
