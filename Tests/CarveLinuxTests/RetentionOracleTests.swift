import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// carve's retention against restic's own `forget`, on the same timestamps: restic
/// makes snapshots at chosen local times (DST changes, month ends, a leap day, ISO
/// week 53, irregular gaps, three groups), and for many random rule combinations the
/// snapshots carve keeps must be exactly the ones restic keeps. The seed is printed
/// with every failure; CARVE_ORACLE_SEED=N replays it.
@Suite(.enabled(if: Shell.has("restic"), "restic is not installed (Scripts/bootstrap installs it)"))
struct RetentionOracleTests {
    static let zone = "Europe/Berlin"

    /// Wall times that sit on the edges calendar arithmetic gets wrong.
    static let edges = [
        "2026-01-31 12:00:00", "2026-02-28 23:59:00", "2026-03-29 01:59:00", "2026-03-29 03:01:00",
        "2026-10-25 01:59:00", "2026-10-25 02:30:00", "2026-10-25 03:10:00", "2026-12-31 23:30:00",
        "2027-01-01 00:30:00", "2027-01-03 23:00:00", "2027-01-04 00:10:00", "2028-02-29 12:00:00",
        "2028-03-30 09:00:00", "2028-03-31 10:00:00",
    ]

    /// Local wall times after `start`, `count` of them, with gaps drawn from `gaps` minutes.
    static func walk(
        from start: CivilTime, count: Int, gaps: [Int], in zone: TimeZone, using rng: inout SplitMix
    ) -> [String] {
        var date = start.date(in: zone), times: [String] = []
        for _ in 0..<count {
            let minutes = gaps.randomElement(using: &rng)! + Int.random(in: 0..<37, using: &rng)
            date = date.addingTimeInterval(Double(minutes * 60))
            let civil = CivilTime(date, in: zone)
            times.append(
                "\(civil.year)-\(pad(civil.month))-\(pad(civil.day)) \(pad(civil.hour)):\(pad(civil.minute)):\(pad(civil.second))"
            )
        }
        return times
    }

    static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// Random `--keep-*` arguments with at least one positive count (restic keeps
    /// everything when every count is 0, a case carve does not copy).
    static func randomRules(using rng: inout SplitMix) -> (arguments: [String], policy: RetentionPolicy) {
        var policy = RetentionPolicy(), arguments: [String] = []
        func maybe(_ option: String) -> Int? {
            guard Bool.random(using: &rng) else { return nil }
            let count = Int.random(in: 0...12, using: &rng)
            arguments += ["--keep-\(option)", "\(count)"]
            return count
        }
        repeat {
            arguments = []
            policy = RetentionPolicy(
                last: maybe("last"), hourly: maybe("hourly"), daily: maybe("daily"),
                weekly: maybe("weekly"), monthly: maybe("monthly"), yearly: maybe("yearly"))
            if Int.random(in: 0..<3, using: &rng) == 0 {
                let within = ["36h", "3d", "10d", "1m", "2m15d", "1y2m", "1y"].randomElement(using: &rng)!
                arguments += ["--keep-within", within]
                policy.within = try? TimeSpan.parse(within)
            }
        } while ![policy.last, policy.hourly, policy.daily, policy.weekly, policy.monthly, policy.yearly]
            .contains(where: { ($0 ?? 0) > 0 })
        return (arguments, policy)
    }

    @Test func carveKeepsExactlyWhatResticKeeps() throws {
        let seed =
            ProcessInfo.processInfo.environment["CARVE_ORACLE_SEED"].flatMap(UInt64.init)
            ?? UInt64.random(in: 0...UInt64.max)
        var rng = SplitMix(seed: seed)
        let zone = try #require(TimeZone(identifier: Self.zone))
        let oracle = try ResticOracle(timeZone: Self.zone)
        let minute = 1, hour = 60, day = 1_440
        var times = Self.edges.map { (host: "edges", wallTime: $0) }
        times += Self.walk(
            from: CivilTime(year: 2026, month: 3, day: 27), count: 40,
            gaps: [7 * minute, 40 * minute, 3 * hour, 9 * hour],
            in: zone, using: &rng
        ).map { ("dense", $0) }
        times += Self.walk(
            from: CivilTime(year: 2025, month: 12, day: 20), count: 35, gaps: [day, 3 * day, 12 * day, 40 * day],
            in: zone, using: &rng
        ).map { ("sparse", $0) }
        try oracle.backup(times)
        let snapshots = try oracle.snapshots()
        #expect(snapshots.count == times.count, "seed \(seed)")
        let retentionIDs = Dictionary(uniqueKeysWithValues: snapshots.enumerated().map { ($1.id, UInt64($0)) })
        let groups = Dictionary(grouping: snapshots, by: \.host)

        for round in 0..<20 {
            let (arguments, policy) = Self.randomRules(using: &rng)
            let resticKept = try oracle.kept(arguments)
            let retention = Retention(policy: policy, timeZone: zone, now: Date())
            var carveKept = Set<String>()
            for group in groups.values {
                let kept = retention.kept(group.map { Retention.Member(id: retentionIDs[$0.id]!, date: $0.time) })
                carveKept.formUnion(group.filter { kept[retentionIDs[$0.id]!] != nil }.map(\.id))
            }
            let onlyCarve = snapshots.filter { carveKept.contains($0.id) && !resticKept.contains($0.id) }
            let onlyRestic = snapshots.filter { resticKept.contains($0.id) && !carveKept.contains($0.id) }
            #expect(
                onlyCarve.isEmpty && onlyRestic.isEmpty,
                """
                seed \(seed) round \(round) \(arguments.joined(separator: " ")): \
                kept only by carve \(onlyCarve.map { "\($0.host) \(DateText.iso8601($0.time, timeZone: zone))" }), \
                only by restic \(onlyRestic.map { "\($0.host) \(DateText.iso8601($0.time, timeZone: zone))" })
                """)
        }
    }
}
