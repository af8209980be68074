/// The lock that keeps two carve runs from deleting at once (flock on a file
/// under /run/lock in CarveLinux).
public protocol DeletionLock: Sendable {
    /// Takes the lock, waiting up to `timeout` seconds (0: not at all). Throws
    /// `LockedError` when another process keeps it. The lock is held until the
    /// returned holder is released or the process ends.
    func acquire(timeout: Double) throws -> any LockHolder
}

/// A held lock.
public protocol LockHolder: Sendable {
    func release()
}

/// Another carve holds the lock: exit 75.
public struct LockedError: ReportableError, Equatable {
    public let path: String
    /// The holder's pid as it wrote it in the lock file, when readable.
    public let holder: Int32?
    public let waited: Double

    public init(path: String, holder: Int32?, waited: Double) {
        self.path = path; self.holder = holder; self.waited = waited
    }

    public var message: String {
        let who = holder.map { "another carve (pid \($0))" } ?? "another carve"
        let wait = waited > 0 ? " after waiting \(Self.seconds(waited))" : ""
        let hint = waited > 0 ? "" : " (--lock-timeout SECONDS waits for it)"
        return "\(who) holds \(path)\(wait): it is deleting snapshots; nothing deleted\(hint)"
    }

    public var exitStatus: ExitStatus { .locked }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value))s" : "\(value)s"
    }
}
