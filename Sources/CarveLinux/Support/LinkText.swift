import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// A symlink's target, read by readlink(2) or readlinkat(2) into a buffer on the stack.
/// A zeroed 4 KiB array copied out byte by byte cost 25,000 instructions a link, and
/// `carve devices` reads two links for each partition.
enum LinkText {
    /// What `call` (given a buffer and its room) wrote, handed to `body`; nil when the
    /// call failed (returned less than zero).
    static func withTarget<Result>(
        _ call: (UnsafeMutablePointer<CChar>, Int) -> Int, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result? {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(PATH_MAX) + 1) { buffer in
            let length = call(buffer.baseAddress!, buffer.count - 1)
            guard length >= 0 else { return nil }
            return body(UnsafeRawBufferPointer(start: buffer.baseAddress, count: length))
        }
    }

    /// The target as text (its bytes kept, as `ByteText` keeps them).
    static func read(_ call: (UnsafeMutablePointer<CChar>, Int) -> Int) -> String? {
        withTarget(call) { ByteText.decode($0) }
    }

    /// The last component but one of a target ("sda" of ../../devices/…/sda/sda1),
    /// empty components skipped; nil when it has fewer than two.
    static func componentBeforeLast(_ target: UnsafeRawBufferPointer) -> String? {
        let slash = UInt8(ascii: "/")
        var end = target.count
        var found: [Range<Int>] = []
        while end > 0, found.count < 2 {
            while end > 0, target[end - 1] == slash { end -= 1 }
            var start = end
            while start > 0, target[start - 1] != slash { start -= 1 }
            if start < end { found.append(start..<end) }
            end = start
        }
        guard found.count == 2 else { return nil }
        return ByteText.decode(UnsafeRawBufferPointer(rebasing: target[found[1]]))
    }
}
