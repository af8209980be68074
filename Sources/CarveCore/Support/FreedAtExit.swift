import Synchronization

/// What a command's output was made from, kept until the process ends instead of being
/// freed piece by piece: ten thousand subvolumes, rows and their strings took 5% of a
/// listing's instructions to free, one reference at a time, just before the kernel
/// takes the whole heap back at once. Each run of a command lets go of what the run
/// before it kept, so a process that runs many (the tests) holds one run's worth.
public enum FreedAtExit {
    private static let kept = Mutex<[any Sendable]>([])

    /// Keeps `value` alive until the process exits or the next command starts.
    public static func keep(_ value: any Sendable) {
        kept.withLock { $0.append(value) }
    }

    /// Frees what earlier commands kept: called as a command starts.
    public static func releaseEarlierRuns() {
        let earlier = kept.withLock { kept in
            defer { kept = [] }
            return kept
        }
        _ = earlier
    }
}
