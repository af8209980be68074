/// Which snapshots of a group to keep, in the words restic and borg use:
/// `--keep-last N`, `--keep-hourly N` … `--keep-yearly N`, `--keep-within DURATION`.
///
/// For each period kind, the newest snapshot of each of the newest N periods that
/// have snapshots is kept (weeks are ISO weeks; periods are read in local time);
/// `within` keeps every snapshot taken within the span before the group's newest
/// snapshot, not before now, so a backup job that stalled for a month does not age
/// every snapshot out. The rules add up: a snapshot kept by any rule stays.
public struct RetentionPolicy: Sendable, Hashable {
    public var last: Int?
    public var hourly: Int?
    public var daily: Int?
    public var weekly: Int?
    public var monthly: Int?
    public var yearly: Int?
    public var within: TimeSpan?

    public init(
        last: Int? = nil, hourly: Int? = nil, daily: Int? = nil, weekly: Int? = nil,
        monthly: Int? = nil, yearly: Int? = nil, within: TimeSpan? = nil
    ) {
        self.last = last; self.hourly = hourly; self.daily = daily; self.weekly = weekly
        self.monthly = monthly; self.yearly = yearly; self.within = within
    }

    /// True when no rule is given: nothing is kept by retention.
    public var isEmpty: Bool { self == RetentionPolicy() }

    /// The period rules in the order restic applies them, with their counts.
    var periodRules: [(period: RetentionPeriod, count: Int)] {
        let rules: [(RetentionPeriod, Int?)] = [
            (.hourly, hourly), (.daily, daily), (.weekly, weekly), (.monthly, monthly), (.yearly, yearly),
        ]
        return rules.compactMap { period, count in count.map { (period, $0) } }
    }
}

/// A calendar period that `--keep-hourly` … `--keep-yearly` count in.
public enum RetentionPeriod: String, Sendable, Hashable, CaseIterable {
    case hourly, daily, weekly, monthly, yearly

    /// The period a wall time falls in as a number, restic's way (YYYYMMDDHH, YYYYMMDD,
    /// ISO YYYYWW, YYYYMM, YYYY): cheap to compare for every snapshot.
    func key(of time: CivilTime) -> Int {
        switch self {
        case .hourly: return ((time.year * 100 + time.month) * 100 + time.day) * 100 + time.hour
        case .daily: return (time.year * 100 + time.month) * 100 + time.day
        case .weekly:
            let week = time.isoWeek
            return week.year * 100 + week.week
        case .monthly: return time.year * 100 + time.month
        case .yearly: return time.year
        }
    }

    /// The period a wall time falls in, named as the user reads it:
    /// `2026-11-17T14`, `2026-11-17`, `2026-W47`, `2026-11`, `2026`.
    func name(of time: CivilTime) -> String {
        let month = DateText.pad(time.month), day = DateText.pad(time.day)
        switch self {
        case .hourly: return "\(DateText.pad(time.year, 4))-\(month)-\(day)T\(DateText.pad(time.hour))"
        case .daily: return "\(DateText.pad(time.year, 4))-\(month)-\(day)"
        case .weekly:
            let week = time.isoWeek
            return "\(DateText.pad(week.year, 4))-W\(DateText.pad(week.week))"
        case .monthly: return "\(DateText.pad(time.year, 4))-\(month)"
        case .yearly: return DateText.pad(time.year, 4)
        }
    }
}

/// Why retention keeps a snapshot; a snapshot may have several.
public enum RetentionReason: Sendable, Hashable, CustomStringConvertible {
    /// One of the newest N: `last 3` is the third newest.
    case last(Int)
    /// The newest snapshot of this period: `daily 2026-11-17`, `weekly 2026-W46`.
    case period(RetentionPeriod, String)
    /// Taken within the span before the group's newest snapshot: `within 7d`.
    case within(TimeSpan)

    public var description: String {
        switch self {
        case .last(let position): "last \(position)"
        case .period(let period, let name): "\(period.rawValue) \(name)"
        case .within(let span): "within \(span)"
        }
    }
}
