import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// The nightly prune of a backup disk: btrbk (under faketime) makes backups on past
/// dates and receives them on a second loop btrfs, where every otime is the day of
/// the test. carve must date them by btrbk's names and delete exactly what restic's
/// `forget` removes for the same times and rules, and btrbk must stay incremental.
@Suite(
    .serialized,
    .integration(needing: "btrbk", "faketime", "restic"))
struct RetentionOnBackupDiskTests {
    /// Irregular backup times over five months: nightly lately, gaps and doubles before.
    static func backupTimes() -> [String] {
        var rng = SplitMix(seed: 20_261_124)
        let zone = TimeZone.current
        var date = CivilTime(year: 2026, month: 6, day: 28, hour: 21).date(in: zone)
        var times: [String] = []
        while times.count < 28 {
            let hours =
                times.count < 18
                ? [6, 30, 75, 170, 260].randomElement(using: &rng)! : [23, 24, 25, 3].randomElement(using: &rng)!
            date = date.addingTimeInterval(Double(hours * 3_600 + Int.random(in: 0..<3_000, using: &rng)))
            let c = CivilTime(date, in: zone)
            times.append(String(format: "%04d-%02d-%02d %02d:%02d:00", c.year, c.month, c.day, c.hour, c.minute))
        }
        return times
    }

    @Test func theCronPruneDoesWhatResticForgetDoesOnTheSameTimes() throws {
        let backups = try BtrbkBackups()
        defer { backups.cleanup() }
        let times = Self.backupTimes()
        for time in times { _ = try backups.backUp(at: time) }
        let rules = ["--keep-daily", "14", "--keep-weekly", "8", "--keep-monthly", "12"]

        let oracle = try ResticOracle(timeZone: TimeZone.current.identifier)
        try oracle.backup(times.map { (host: "data", wallTime: $0) })
        let resticKept = try oracle.kept(rules)
        let utc = TimeZone(identifier: "UTC")!
        let expected = Set(
            try oracle.snapshots().filter { resticKept.contains($0.id) }.map {
                DateText.iso8601($0.time, timeZone: utc)
            })
        #expect(expected.count < times.count, "the rules must delete something for the test to mean anything")

        let target = backups.target
        let preview = try target.carve(
            ["snapshots", "delete", "--filesystem", target.mountpoint] + rules + ["--dry-run", "--json"])
        let kept = (try DeletionDisk.json(preview)["kept"] as? [[String: Any]]) ?? []
        #expect(
            kept.count == expected.count && kept.allSatisfy { !(($0["kept_by"] as? [String]) ?? []).isEmpty },
            "\(preview.stdout)")

        let run = try target.carve(
            ["snapshots", "delete", "--filesystem", target.mountpoint] + rules + ["--yes", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let listed = try DeletionDisk.json(
            try target.carve(["snapshots", "list", target.mountpoint, "--sizes", "none", "--json"]))
        let rows = listed["snapshots"] as? [[String: Any]] ?? []
        #expect(rows.allSatisfy { $0["date_source"] as? String == "btrbk" })
        let survivors = Set(
            rows.compactMap { row -> String? in
                guard let created = row["created"] as? String,
                    let date = try? DateArgument.parse(created, timeZone: utc)
                else { return nil }
                return DateText.iso8601(date, timeZone: utc)
            })
        #expect(survivors == expected, "carve kept \(survivors.sorted()), restic \(expected.sorted())")

        let next = try backups.backUp(at: "2026-11-24 21:00:00")
        #expect(!next.contains("No common parent") && !next.contains("*** /"), "\(next)")
    }
}
