import CarveTestSupport
import Foundation
import Testing

/// btrbk itself, run under faketime on past dates, backing up one loop btrfs to another:
/// whatever carve prunes on either side, btrbk's next backup stays incremental.
@Suite(
    .serialized,
    .integration(needing: "btrbk", "faketime"))
struct BackupChainIntegrationTests {
    func withBackups(_ body: (BtrbkBackups) throws -> Void) throws {
        let backups = try BtrbkBackups()
        defer { backups.cleanup() }
        try body(backups)
    }

    @Test func btrbkStaysIncrementalAfterCarvePrunesBothSides() throws {
        try withBackups { backups in
            #expect(try backups.backUp(day: 1).contains("*** \(backups.target.mountpoint)/backup/data.20261101T1200"))
            for day in 2...3 {
                #expect(
                    try backups.backUp(day: day).contains(
                        ">>> \(backups.target.mountpoint)/backup/data.2026110\(day)T1200"))
            }
            let listed = try DeletionDisk.json(
                try backups.target.carve(["snapshots", "list", backups.target.mountpoint, "--json"]))
            let rows = listed["snapshots"] as? [[String: Any]] ?? []
            #expect(
                rows.map { $0["source"] as? String }
                    == (1...3).map { "\(backups.source.mountpoint)/snaps/data.2026110\($0)T1200" })
            #expect(rows.map { $0["chain_parent"] as? Bool } == [false, false, true])

            let sourceSide = try backups.prune(backups.source)
            let targetSide = try backups.prune(backups.target)
            #expect(DeletionDisk.ids(sourceSide["deleted"]).count == 2)
            #expect(
                (sourceSide["protected"] as? [[String: Any]])?.first?["reason"] as? String
                    == "parent of the incremental backup at \(backups.target.mountpoint)/backup/data.20261103T1200 (use --break-chains)"
            )
            #expect(DeletionDisk.ids(targetSide["deleted"]).count == 2)
            #expect(try backups.source.subvolumes() == ["data", "snaps/data.20261103T1200"])
            #expect(try backups.target.subvolumes() == ["backup/data.20261103T1200", "data"])

            let next = try backups.backUp(day: 4)
            #expect(next.contains(">>> \(backups.target.mountpoint)/backup/data.20261104T1200"), "\(next)")
            #expect(!next.contains("*** /") && !next.contains("No common parent"), "\(next)")
            let list = try Shell.check(["btrbk", "-c", backups.config, "list", "all"])
            #expect(
                list.contains(
                    "snaps/data.20261104T1200  up-to-date  \(backups.target.mountpoint)/backup/data.20261104T1200"),
                "\(list)")
        }
    }

    /// The control: with --break-chains the pair goes, and btrbk has to send everything again.
    @Test func breakingTheChainsMakesTheNextBackupAFullOne() throws {
        try withBackups { backups in
            for day in 1...2 { _ = try backups.backUp(day: day) }
            _ = try backups.prune(backups.source, ["--break-chains"])
            _ = try backups.prune(backups.target, ["--break-chains"])
            #expect(try backups.source.subvolumes() == ["data"])
            #expect(try backups.backUp(day: 3).contains("*** \(backups.target.mountpoint)/backup/data.20261103T1200"))
        }
    }
}
