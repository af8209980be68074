import Glibc
import Synchronization

/// A pthread mutex, for state several threads touch (the deletion lock's
/// holder, caches filled by the scan's workers, the progress view).
public final class Lock: @unchecked Sendable {
    fileprivate let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init() { pthread_mutex_init(mutex, nil) }
    deinit { pthread_mutex_destroy(mutex); mutex.deallocate() }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock(); defer { unlock() }
        return try body()
    }
}

/// A lock with a condition variable: a thread waits, holding the lock, until
/// another changes what it waits for and broadcasts.
final class Condition: @unchecked Sendable {
    private let mutex = Lock()
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() { pthread_cond_init(condition, nil) }
    deinit { pthread_cond_destroy(condition); condition.deallocate() }

    func lock() { mutex.lock() }
    func unlock() { mutex.unlock() }
    /// Call with the lock held; it is held again on return.
    func wait() { pthread_cond_wait(condition, mutex.mutex) }
    func broadcast() { pthread_cond_broadcast(condition) }
}

enum Threads {
    /// Processors online (sysconf), at least 1.
    static var availableProcessors: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// Runs `body(0)` … `body(count - 1)` at once, one thread each, and returns when all have.
    static func concurrentPerform(iterations count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        guard count > 1 else { if count == 1 { body(0) }; return }
        final class Work: @unchecked Sendable {
            let body: @Sendable (Int) -> Void
            let index: Int
            init(_ body: @escaping @Sendable (Int) -> Void, _ index: Int) { self.body = body; self.index = index }
        }
        var threads: [pthread_t] = []
        for index in 1..<count {
            var thread = pthread_t()
            let work = Unmanaged.passRetained(Work(body, index)).toOpaque()
            let started = pthread_create(
                &thread, nil,
                { raw in
                    let work = Unmanaged<Work>.fromOpaque(raw!).takeRetainedValue()
                    work.body(work.index)
                    return nil
                }, work)
            if started == 0 {
                threads.append(thread)
            } else {
                // No thread to spare: do that share here.
                Unmanaged<Work>.fromOpaque(work).release()
                body(index)
            }
        }
        body(0)
        for thread in threads { pthread_join(thread, nil) }
    }
}

/// Hands out 0, 1, 2, … below `count`, each once, to whichever thread asks first: work
/// shared by who is free, not cut in advance (one share of a changed tree can hold
/// most of what changed). Each thread is handed ascending numbers.
final class TakeNext: Sendable {
    let count: Int
    private let next = Atomic<Int>(0)

    init(_ count: Int) { self.count = count }

    func take() -> Int? {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        return index < count ? index : nil
    }
}

/// A value computed on a thread of its own while the caller goes on; `value` waits
/// for it. Where no thread can be made, it is computed at once, on the caller's.
final class Background<Value: Sendable>: @unchecked Sendable {
    private let condition = Condition()
    private var result: Value?

    init(_ body: @escaping @Sendable () -> Value) {
        let work = Unmanaged.passRetained(BackgroundWork { [self] in self.finish(body()) }).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { raw in
                Unmanaged<BackgroundWork>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, work)
        if started == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<BackgroundWork>.fromOpaque(work).release()
            finish(body())
        }
    }

    var value: Value {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return result!
    }

    private func finish(_ value: Value) {
        condition.lock()
        result = value
        condition.broadcast()
        condition.unlock()
    }
}

/// What a `Background` thread runs, passed through pthread_create's one pointer.
private final class BackgroundWork: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
