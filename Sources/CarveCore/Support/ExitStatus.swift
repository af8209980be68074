/// The exit codes of every carve command. Fixed: scripts depend on them, and
/// the README and carve(8) document exactly this table.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Success; for `check`, the operation fits.
    case success = 0
    /// A runtime failure: nothing, or not everything, could be done.
    case failure = 1
    /// `check`: the operation does not fit.
    case doesNotFit = 3
    /// Some items failed, the others were done.
    case partialFailure = 4
    /// `devices`: none of the named devices was found (lsblk's 32).
    case noDeviceFound = 32
    /// Usage error or bad input; nothing was changed.
    case usage = 64
    /// Another carve holds the lock.
    case locked = 75
    /// The operation needs root.
    case needsRoot = 77
    /// Interrupted by SIGINT or SIGTERM; what was done is reported.
    case interrupted = 130

    /// The code's meaning in a few words, for the exit-status line of `--help`.
    public var phrase: String {
        switch self {
        case .success: "success"
        case .failure: "failure"
        case .doesNotFit: "check: does not fit"
        case .partialFailure: "partial failure"
        case .noDeviceFound: "no named device found"
        case .usage: "usage or bad input"
        case .locked: "another carve holds the lock"
        case .needsRoot: "needs root"
        case .interrupted: "interrupted"
        }
    }

    /// "Exit status: 0 success …, 1 failure, …." for `statuses` (every one by default),
    /// so no help text spells the table by hand.
    public static func summary(_ statuses: [ExitStatus] = allCases) -> String {
        "Exit status: " + statuses.map { "\($0.rawValue) \($0.phrase)" }.joined(separator: ", ") + "."
    }

    /// What the code means, as the exit-code table says it.
    public var meaning: String {
        switch self {
        case .success: "success (for check: the operation fits)"
        case .failure: "failure: nothing could be done"
        case .doesNotFit: "check: the operation does not fit"
        case .partialFailure: "partial failure: some items failed, the others were done"
        case .noDeviceFound: "devices: none of the named devices was found"
        case .usage: "usage error or bad input; nothing was changed"
        case .locked: "another carve holds the lock"
        case .needsRoot: "the operation needs root"
        case .interrupted: "interrupted; what was done is reported"
        }
    }
}
