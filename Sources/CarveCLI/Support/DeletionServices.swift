import CarveCore

/// What the deleting commands need besides `Services`: the lock, signals, syslog and
/// the answer to a prompt. Kept apart so that the read-only commands never see them;
/// CLI tests hand in fakes through `DeletionServices.$current.withValue`; what nobody
/// hands in is `noMachine`'s.
public struct DeletionServices: Sendable {
    public var lock: any DeletionLock
    /// Starts turning SIGINT/SIGTERM into `flag`; the closure is told on the first signal.
    public var catchInterrupts: @Sendable (_ flag: CancellationFlag, _ onSignal: @escaping @Sendable () -> Void) -> Void
    /// Writes one audit line to syslog (`--syslog`).
    public var systemLog: @Sendable (String) -> Void
    /// Reads the answer to a confirmation prompt from stdin; nil at end of input.
    public var readAnswer: @Sendable () -> String?

    public init(
        lock: any DeletionLock,
        catchInterrupts: @escaping @Sendable (CancellationFlag, @escaping @Sendable () -> Void) -> Void = { _, _ in },
        systemLog: @escaping @Sendable (String) -> Void = { _ in },
        readAnswer: @escaping @Sendable () -> String? = { nil }
    ) {
        self.lock = lock; self.catchInterrupts = catchInterrupts; self.systemLog = systemLog;
        self.readAnswer = readAnswer
    }

    /// The deletion services of the running command: `noMachine`'s unless the caller
    /// chose others (`main` runs carve under `DeletionServices.system()`).
    @TaskLocal public static var current: DeletionServices = .noMachine

    /// A lock no other process sees, no signal caught, nothing logged, no answer read:
    /// what a test that hands in nothing gets, so it cannot take this machine's lock.
    public static var noMachine: DeletionServices { DeletionServices(lock: UnsharedLock()) }
}

/// A lock that only its own run knows of: `DeletionServices.noMachine`'s.
struct UnsharedLock: DeletionLock, LockHolder {
    func acquire(timeout: Double) throws -> any LockHolder { self }
    func release() {}
}
