import CarveTestSupport
import Foundation
import Testing

/// A source disk with `data` and btrbk's `snaps/`, a target disk with `backup/`, and the btrbk.conf joining them.
final class BtrbkBackups {
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
        try FileManager.default.createDirectory(
            atPath: target.mountpoint + "/backup", withIntermediateDirectories: true)
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
        try backUp(at: String(format: "2026-11-%02d 12:00:00", day))
    }

    /// `btrbk run` at a local wall time "YYYY-MM-DD HH:MM:SS" (under faketime), after a change in the source.
    func backUp(at stamp: String) throws -> String {
        try "\(stamp)\n".write(
            toFile: source.mountpoint + "/data/f" + stamp.filter(\.isNumber), atomically: true, encoding: .utf8)
        let run = try Shell.run(["faketime", stamp, "btrbk", "-c", config, "run"])
        #expect(run.status == 0, "btrbk run: \(run.stderr)")
        return run.stdout + run.stderr
    }

    func prune(_ disk: DeletionDisk, _ options: [String] = []) throws -> [String: Any] {
        let result = try disk.carve(
            ["snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--yes", "--json"] + options)
        #expect(result.status == 0, "\(result.stderr)")
        return try DeletionDisk.json(result)
    }
}
