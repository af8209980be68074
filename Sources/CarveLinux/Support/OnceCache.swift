import Glibc
import Synchronization

/// Values computed once per key and shared by every later caller, safe across threads.
final class OnceCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let values = Mutex<[Key: Value]>([:])

    func value(for key: Key, _ make: () -> Value) -> Value {
        if let known = values.withLock({ $0[key] }) { return known }
        let made = make()
        values.withLock { $0[key] = made }
        return made
    }
}
