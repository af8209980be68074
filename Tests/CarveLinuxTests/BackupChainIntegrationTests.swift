import CarveTestSupport
import Foundation
import Testing

/// btrbk itself, run under faketime on past dates, backing up one loop btrfs to another:
/// whatever carve prunes on either side, btrbk's next backup stays incremental.
@Suite(.serialized, .enabled(if: Integration.enabled && Shell.has("btrbk") && Shell.has("faketime"),
                             "needs root, loop devices, btrbk and faketime"))
struct BackupChainIntegrationTests {
    /// A source disk with `data` and btrbk's `snaps/`, a target disk with `backup/`, and the btrbk.conf joining them.
    final class Backups {
        let source: DeletionDisk
        let target: DeletionDisk
        let config: String

        init() throws {
            source = try DeletionDisk(size: "512M")
            do {
                target = try DeletionDisk(size: "512M")
            } catch {
                source.cleanup()
                throw error
            }
            config = source.disk.directory + "/btrbk.conf"
            try FileManager.default.createDirectory(atPath: target.mountpoint + "/backup", withIntermediateDirectories: true)
            try """
            timestamp_format long
            snapshot_preserve_min all
            target_preserve_min all
            volume \(source.mountpoint)
              snapshot_dir snaps
              subvolume data
                target send-receive \(target.mountpoint)/backup

            """.write(toFile: config, atomically: true, encoding: .utf8)
        }

        func cleanup() {
            target.cleanup()
            source.cleanup()
        }

        /// `btrbk run` on November `day` at noon, after a change in the source; btrbk's summary lines.
        func backUp(day: Int) throws -> String {
            let stamp = String(format: "2026-11-%02d 12:00:00", day)
            try "\(day)\n".write(toFile: source.mountpoint + "/data/f\(day)", atomically: true, encoding: .utf8)
            let run = try Shell.run(["faketime", stamp, "btrbk", "-c", config, "run"])
            #expect(run.status == 0, "btrbk run: \(run.stderr)")
            return run.stdout + run.stderr
        }

        func prune(_ disk: DeletionDisk, _ options: [String] = []) throws -> [String: Any] {
            let result = try disk.carve(["snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--yes", "--json"] + options)
            #expect(result.status == 0, "\(result.stderr)")
            return try DeletionDisk.json(result)
        }
    }

    func withBackups(_ body: (Backups) throws -> Void) throws {
        let backups = try Backups()
        defer { backups.cleanup() }
        try body(backups)
    }

    @Test func btrbkStaysIncrementalAfterCarvePrunesBothSides() throws {
        try withBackups { backups in
            #expect(try backups.backUp(day: 1).contains("*** \(backups.target.mountpoint)/backup/data.20261101T1200"))
            for day in 2...3 {
                #expect(try backups.backUp(day: day).contains(">>> \(backups.target.mountpoint)/backup/data.2026110\(day)T1200"))
            }
            let listed = try DeletionDisk.json(try backups.target.carve(["snapshots", "list", backups.target.mountpoint, "--json"]))
            let rows = listed["snapshots"] as? [[String: Any]] ?? []
            #expect(rows.map { $0["source"] as? String } == (1...3).map { "\(backups.source.mountpoint)/snaps/data.2026110\($0)T1200" })
            #expect(rows.map { $0["chain_parent"] as? Bool } == [false, false, true])

            let sourceSide = try backups.prune(backups.source)
            let targetSide = try backups.prune(backups.target)
            #expect(DeletionDisk.ids(sourceSide["deleted"]).count == 2)
            #expect((sourceSide["protected"] as? [[String: Any]])?.first?["reason"] as? String
                == "parent of the incremental backup at \(backups.target.mountpoint)/backup/data.20261103T1200 (use --break-chains)")
            #expect(DeletionDisk.ids(targetSide["deleted"]).count == 2)
            #expect(try backups.source.subvolumes() == ["data", "snaps/data.20261103T1200"])
            #expect(try backups.target.subvolumes() == ["backup/data.20261103T1200", "data"])

            let next = try backups.backUp(day: 4)
            #expect(next.contains(">>> \(backups.target.mountpoint)/backup/data.20261104T1200"), "\(next)")
            #expect(!next.contains("*** /") && !next.contains("No common parent"), "\(next)")
            let list = try Shell.check(["btrbk", "-c", backups.config, "list", "all"])
            #expect(list.contains("snaps/data.20261104T1200  up-to-date  \(backups.target.mountpoint)/backup/data.20261104T1200"), "\(list)")
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
