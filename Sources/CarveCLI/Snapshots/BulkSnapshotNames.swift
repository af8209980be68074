/// ArgumentParser stores each positional value by copying the array parsed so far and
/// merging the positions seen, so parsing grows with the square of the count: 1,000
/// snapshots named on the command line took 36 ms, a quarter of deleting them. For
/// `snapshots delete` with many arguments the names are set apart before parsing and
/// handed to the command after it; options, values and every error stay ArgumentParser's.
enum BulkSnapshotNames {
    /// Below this many arguments ArgumentParser's own way costs nothing worth saving.
    static let threshold = 64

    /// The options of `snapshots delete` that take a value: the argument after one is
    /// its value, not a name. A test keeps this in step with the command's definition.
    static let optionsTakingValues: Set<String> = [
        "--id", "--filesystem", "--older-than", "--before", "--after", "--match", "--manager", "--source",
        "--cleanup", "--keep-last", "--keep-hourly", "--keep-daily", "--keep-weekly", "--keep-monthly", "--keep-yearly",
        "--keep-within",
        "--lock-timeout", "--sizes", "--options-file", "--max-count",
    ]

    /// The arguments to parse and the names set apart; nil when `arguments` are not
    /// `snapshots delete` with at least `threshold` arguments.
    static func setApart(_ arguments: [String]) -> (arguments: [String], names: [String])? {
        guard arguments.count >= threshold, arguments.starts(with: ["snapshots", "delete"]) else { return nil }
        var kept = Array(arguments.prefix(2)), names: [String] = []
        var index = 2, afterTerminator = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if afterTerminator || argument == "-" || !argument.hasPrefix("-") {
                names.append(argument)
            } else if argument == "--" {
                afterTerminator = true
            } else {
                kept.append(argument)
                if optionsTakingValues.contains(argument), index < arguments.count {
                    kept.append(arguments[index])
                    index += 1
                }
            }
        }
        return (kept, names)
    }
}
