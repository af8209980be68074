import ArgumentParser
import CarveCore

/// `--keep-last`, `--keep-hourly` … `--keep-yearly` and `--keep-within`, with restic's meaning.
struct RetentionOptions: ParsableArguments {
    @Option(
        name: .customLong("keep-last"), parsing: .unconditional,
        help: ArgumentHelp(
            "Keep the newest N snapshots.", valueName: "N"))
    var last: Int?

    @Option(
        name: .customLong("keep-hourly"), parsing: .unconditional,
        help: ArgumentHelp(
            "Keep the newest snapshot of each of the last N hours that have one.", valueName: "N"))
    var hourly: Int?

    @Option(
        name: .customLong("keep-daily"), parsing: .unconditional,
        help: ArgumentHelp(
            "Keep the newest snapshot of each of the last N days that have one.", valueName: "N"))
    var daily: Int?

    @Option(
        name: .customLong("keep-weekly"), parsing: .unconditional,
        help: ArgumentHelp(
            "Keep the newest snapshot of each of the last N ISO weeks that have one.", valueName: "N"))
    var weekly: Int?

    @Option(
        name: .customLong("keep-monthly"), parsing: .unconditional,
        help: ArgumentHelp(
            "Keep the newest snapshot of each of the last N months that have one.", valueName: "N"))
    var monthly: Int?

    @Option(
        name: .customLong("keep-yearly"), parsing: .unconditional,
        help: ArgumentHelp(
            "Keep the newest snapshot of each of the last N years that have one.", valueName: "N"))
    var yearly: Int?

    @Option(
        name: .customLong("keep-within"), parsing: .unconditional,
        help: ArgumentHelp(
            "Keep every snapshot taken within this long before the newest one: 7d, 2w, 1y6m.", valueName: "duration"))
    var within: String?

    /// The policy; a `UsageError` naming the option when a count is negative or the span is zero.
    func policy() throws(UsageError) -> RetentionPolicy {
        func count(_ value: Int?, _ option: String) throws(UsageError) -> Int? {
            guard let value else { return nil }
            guard value >= 0 else {
                throw UsageError("invalid count '\(value)' for --keep-\(option): must be 0 or more")
            }
            return value
        }
        var policy = RetentionPolicy(
            last: try count(last, "last"), hourly: try count(hourly, "hourly"), daily: try count(daily, "daily"),
            weekly: try count(weekly, "weekly"), monthly: try count(monthly, "monthly"),
            yearly: try count(yearly, "yearly"))
        if let within {
            let span = try TimeSpan.parse(within)
            guard !span.isZero else {
                throw UsageError("invalid duration '\(within)' for --keep-within: must be longer than zero")
            }
            policy.within = span
        }
        return policy
    }
}
