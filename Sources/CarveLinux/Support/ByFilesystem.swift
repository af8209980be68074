/// Values kept by filesystem UUID that remember the last one asked for: a deletion run
/// asks for one filesystem's before each snapshot, and comparing its UUID with the
/// last costs less than hashing it (36 bytes, a thousand times).
struct ByFilesystem<Value> {
    private var values: [String: Value] = [:]
    private var last: (uuid: String, value: Value)?

    mutating func value(for uuid: String) -> Value? {
        if let last, last.uuid == uuid { return last.value }
        guard let value = values[uuid] else { return nil }
        last = (uuid, value)
        return value
    }

    mutating func set(_ value: Value, for uuid: String) {
        values[uuid] = value
        last = (uuid, value)
    }

    mutating func removeAll() {
        values = [:]
        last = nil
    }
}
