import CarveCore
import CarveTestSupport
import Foundation
import Testing

@Suite struct RetentionTests {
    typealias F = SnapshotFixtures
    let utc = TimeZone(identifier: "UTC")!

    func at(_ y: Int, _ m: Int, _ d: Int, _ h: Int = 12) -> Date {
        CivilTime(year: y, month: m, day: d, hour: h).date(in: utc)
    }

    func kept(_ dates: [Date], _ policy: RetentionPolicy, now: Date? = nil) -> [String: [String]] {
        let retention = Retention(policy: policy, timeZone: utc, now: now ?? at(2030, 1, 1))
        let members = dates.enumerated().map { Retention.Member(id: UInt64($0.offset), date: $0.element) }
        var named: [String: [String]] = [:]
        for (id, reasons) in retention.kept(members) {
            named[DateText.iso8601(dates[Int(id)], timeZone: utc)] = reasons.map(\.description)
        }
        return named
    }

    @Test func eachPeriodKeepsItsNewestSnapshotAndSaysWhich() {
        // Two a day, 2026-11-16 (Monday, ISO week 47) to 2026-11-22 (Sunday).
        let dates = (16...22).flatMap { [at(2026, 11, $0, 6), at(2026, 11, $0, 18)] }
        let result = kept(dates, RetentionPolicy(last: 1, daily: 2, weekly: 1, monthly: 1, yearly: 1))
        #expect(
            result == [
                "2026-11-22T18:00:00Z": [
                    "last 1", "daily 2026-11-22", "weekly 2026-W47", "monthly 2026-11", "yearly 2026",
                ],
                "2026-11-21T18:00:00Z": ["daily 2026-11-21"],
            ])
        #expect(kept(dates, RetentionPolicy(hourly: 1))["2026-11-22T18:00:00Z"] == ["hourly 2026-11-22T18"])
    }

    @Test func periodsWithoutSnapshotsAreNotCounted() {
        // Daily 3 over a gap keeps three days that have snapshots, however far apart.
        let dates = [at(2026, 1, 1), at(2026, 3, 1), at(2026, 6, 1), at(2026, 6, 2)]
        #expect(
            Set(kept(dates, RetentionPolicy(daily: 3)).keys) == [
                "2026-06-02T12:00:00Z", "2026-06-01T12:00:00Z", "2026-03-01T12:00:00Z",
            ])
    }

    @Test func withinCountsBackFromTheNewestSnapshotNotFromNow() {
        // The job stalled in March: a week's window still keeps the last week it ran.
        let dates = [at(2026, 2, 20), at(2026, 2, 27), at(2026, 3, 1), at(2026, 3, 3)]
        let result = kept(dates, RetentionPolicy(within: TimeSpan(weeks: 1)), now: at(2026, 11, 24))
        #expect(Set(result.keys) == ["2026-02-27T12:00:00Z", "2026-03-01T12:00:00Z", "2026-03-03T12:00:00Z"])
        #expect(result["2026-03-03T12:00:00Z"] == ["within 1w"])
    }

    @Test func aSnapshotDatedInTheFutureDoesNotMoveTheWindow() {
        let dates = [at(2026, 11, 1), at(2026, 11, 20), at(2031, 1, 1)]
        let result = kept(dates, RetentionPolicy(within: TimeSpan(days: 7)), now: at(2026, 11, 24))
        #expect(Set(result.keys) == ["2026-11-20T12:00:00Z", "2031-01-01T12:00:00Z"])
    }

    @Test func isoWeeksCrossTheNewYear() {
        #expect(CivilTime(year: 2026, month: 12, day: 31).isoWeek == (2026, 53))
        #expect(CivilTime(year: 2027, month: 1, day: 3).isoWeek == (2026, 53))
        #expect(CivilTime(year: 2027, month: 1, day: 4).isoWeek == (2027, 1))
        #expect(CivilTime(year: 2024, month: 12, day: 30).isoWeek == (2025, 1))
    }

    /// On a backup disk each received backup's parent UUID is the previous backup: the
    /// series is btrbk's name in its directory, or retention would see one per backup.
    @Test func receivedBackupsCountAsOneSeriesPerSubvolume() {
        func received(_ id: UInt64, _ name: String, previous: UInt64?) -> Volume {
            var volume = F.snapshot(
                id, path: "backup/\(name)", of: nil, daysAgo: 0,
                metadata: ManagerMetadata(
                    manager: .btrbk, name: name, created: BtrbkName.parse(name, timeZone: utc)?.created))
            volume.parentUUID = previous.map(F.uuid)
            volume.receivedUUID = F.uuid(id + 1_000)
            volume.created = volume.metadata.created!
            return volume
        }
        let backups = [
            received(300, "data.20261101T1200", previous: nil), received(301, "data.20261102T1200", previous: 300),
            received(302, "data.20261103T1200", previous: 301), received(310, "home.20261103T1200", previous: nil),
        ]
        let selection = SnapshotSelection(keepLast: 1, timeZone: utc)
        #expect(selection.apply(to: backups, now: F.epoch).map(\.id) == [300, 301])
        #expect(
            selection.evaluate(backups, now: F.epoch).keptBy.mapValues { $0.map(\.description) } == [
                302: ["last 1"], 310: ["last 1"],
            ])
    }

    @Test func retentionNarrowedByAgeNeverDeletesWhatARuleKeeps() {
        let home = F.subvolume(256, path: "@home")
        let snapshots = (0..<10).map {
            F.snapshot(300 + UInt64($0), path: "s\($0)", of: home, daysAgo: Double($0) * 10)
        }
        let selection = SnapshotSelection(
            olderThan: TimeSpan(days: 25), retention: RetentionPolicy(monthly: 2), timeZone: utc)
        let selected = Set(selection.apply(to: [home] + snapshots, now: F.epoch).map(\.id))
        let keptIDs = Set(selection.evaluate([home] + snapshots, now: F.epoch).keptBy.keys)
        #expect(selected.isDisjoint(with: keptIDs) && keptIDs.count == 2)
        #expect(
            selected
                == Set(snapshots.filter { $0.created < F.epoch.addingTimeInterval(-25 * 86_400) }.map(\.id))
                .subtracting(keptIDs))
    }
}
