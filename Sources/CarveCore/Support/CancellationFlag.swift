import Synchronization

/// Set by SIGINT/SIGTERM (or a test); the session stops after the snapshot being deleted.
public final class CancellationFlag: Sendable {
    private let cancelled = Atomic<Bool>(false)
    public init() {}
    public func cancel() { cancelled.store(true, ordering: .sequentiallyConsistent) }
    public var isCancelled: Bool { cancelled.load(ordering: .sequentiallyConsistent) }
}
