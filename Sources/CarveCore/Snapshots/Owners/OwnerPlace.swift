/// Where a subvolume lies, split into path components once for every owner.
public struct OwnerPlace: Sendable {
    /// Its path from the top level, e.g. "@/var/lib/docker/btrfs/subvolumes/ID".
    public var path: String
    /// Its path from the top level, e.g. ["@", "var", "lib", "docker", "btrfs", "subvolumes", "ID"].
    public var components: [Substring]
    /// Its path through a mount, when a mount reaches it.
    public var mountedComponents: [Substring]?
    public var mountedPath: String?
    public var readOnly: Bool

    public init(path: String, mountedPath: String?, readOnly: Bool) {
        self.path = path
        components = Self.split(path)
        mountedComponents = mountedPath.map(Self.split)
        self.mountedPath = mountedPath; self.readOnly = readOnly
    }

    /// The names of a path, split at its "/" bytes as the kernel splits it (splitting by
    /// Character cost more than the owners' whole look at a pool of thousands).
    static func split(_ path: String) -> [Substring] {
        path.utf8.split(separator: UInt8(ascii: "/")).map { Substring($0) }
    }

    /// The first place (top-level or mounted components) where `sequence` occurs followed
    /// by at least `after` more components: the mounted path when a mount reaches it
    /// (that is where an owner's files can be looked at), then the top-level path.
    public func find(_ sequence: [String], after: Int = 1) -> (mounted: Bool, prefix: [Substring])? {
        if let mounted = mountedComponents, let at = Self.index(of: sequence, in: mounted, after: after) {
            return (true, Array(mounted[..<at]))
        }
        if let at = Self.index(of: sequence, in: components, after: after) { return (false, Array(components[..<at])) }
        return nil
    }

    static func index(of sequence: [String], in components: [Substring], after: Int) -> Int? {
        guard components.count >= sequence.count + after else { return nil }
        return (0...(components.count - sequence.count - after)).first { start in
            sequence.indices.allSatisfy { components[start + $0] == sequence[$0] }
        }
    }
}

/// A subvolume's paths as bytes, for the owners' first, cheap look (`mayOwn`).
public struct OwnerPathBytes {
    /// Its path from the top level.
    public var path: Bytes
    /// Its path through a mount, when a mount reaches it.
    public var mounted: Bytes?
    /// The path's last component.
    public var last: Bytes
    public var readOnly: Bool

    /// True when the path or the mounted path contains one of `hints`.
    public func containsAny(_ hints: [StaticString]) -> Bool {
        hints.contains { path.contains($0) || mounted?.contains($0) == true }
    }

    /// Bytes borrowed from a string for the length of one look.
    public struct Bytes {
        public let buffer: UnsafeBufferPointer<UInt8>

        /// True when `needle` occurs in the bytes.
        public func contains(_ needle: StaticString) -> Bool {
            let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
            guard let first = pattern.first, buffer.count >= pattern.count else { return false }
            // Compares the rest only where the first byte matches: a path is scanned once per hint.
            for offset in 0...(buffer.count - pattern.count) where buffer[offset] == first {
                if UnsafeBufferPointer(rebasing: buffer[offset..<offset + pattern.count]).elementsEqual(pattern) {
                    return true
                }
            }
            return false
        }

        /// True when the bytes begin with `text`'s.
        public func hasPrefix(_ text: String) -> Bool {
            var text = text
            return text.withUTF8 { buffer.starts(with: $0) }
        }

        public func equals(_ text: StaticString) -> Bool {
            buffer.elementsEqual(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
    }

    /// Calls `body` with the bytes of `path` and `mountedPath`, copied only when a string
    /// does not hold them contiguously.
    static func with<Result>(
        _ path: String, _ mountedPath: String?, readOnly: Bool, _ body: (OwnerPathBytes) -> Result
    ) -> Result {
        withBytes(path) { path in
            var start = path.count
            while start > 0 && path[start - 1] != UInt8(ascii: "/") { start -= 1 }
            let last = Bytes(buffer: UnsafeBufferPointer(rebasing: path[start...]))
            guard let mountedPath else {
                return body(OwnerPathBytes(path: Bytes(buffer: path), mounted: nil, last: last, readOnly: readOnly))
            }
            return withBytes(mountedPath) { mounted in
                body(
                    OwnerPathBytes(
                        path: Bytes(buffer: path), mounted: Bytes(buffer: mounted), last: last, readOnly: readOnly))
            }
        }
    }

    private static func withBytes<Result>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        // withUTF8 on a native string hands out its storage; the UTF8View's generic
        // withContiguousStorageIfAvailable cost hundreds of instructions a call.
        var text = text
        return text.withUTF8(body)
    }
}
