/// Applies a `RetentionPolicy` to the snapshots of one group, as restic's
/// `forget` does: newest first, each period rule keeps a snapshot when its period
/// differs from that of the last snapshot it kept, until its count is used up.
/// `within` counts back from the group's newest snapshot that is not in the future
/// (a snapshot dated ahead by a wrong clock must not move the window), as restic does.
public struct Retention: Sendable {
    public var policy: RetentionPolicy
    public var timeZone: TimeZone
    public var now: Date

    public init(policy: RetentionPolicy, timeZone: TimeZone, now: Date) {
        self.policy = policy; self.timeZone = timeZone; self.now = now
    }

    /// A snapshot's place in a group: its id and the date retention reads.
    public struct Member: Sendable, Hashable {
        public var id: UInt64
        public var date: Date
        public init(id: UInt64, date: Date) { self.id = id; self.date = date }
    }

    /// The reasons each kept member is kept; members absent from the result are not kept.
    public func kept(_ group: [Member]) -> [UInt64: [RetentionReason]] {
        let newestFirst = group.sorted { ($0.date, $0.id) > ($1.date, $1.id) }
        guard !newestFirst.isEmpty else { return [:] }
        var rules = policy.periodRules.map { (period: $0.period, left: $0.count, lastPeriod: Int?.none) }
        // With every snapshot in the future there is no newest to count back from: all are within.
        let newestPast = newestFirst.first { $0.date < now }
        let withinStart = policy.within.map { span in
            newestPast.map { span.before($0.date, in: timeZone) } ?? .distantPast
        }
        var kept: [UInt64: [RetentionReason]] = [:]
        for (position, member) in newestFirst.enumerated() {
            var reasons: [RetentionReason] = []
            if let last = policy.last, position < last { reasons.append(.last(position + 1)) }
            if rules.contains(where: { $0.left > 0 }) {
                let time = CivilTime(member.date, in: timeZone)
                for index in rules.indices where rules[index].left > 0 {
                    let key = rules[index].period.key(of: time)
                    guard key != rules[index].lastPeriod else { continue }
                    rules[index].lastPeriod = key
                    rules[index].left -= 1
                    reasons.append(.period(rules[index].period, rules[index].period.name(of: time)))
                }
            }
            if let withinStart, let span = policy.within, member.date > withinStart { reasons.append(.within(span)) }
            if !reasons.isEmpty { kept[member.id] = reasons }
        }
        return kept
    }
}
