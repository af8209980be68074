/// One tree's extent references as a scan's worker holds them until they are merged
/// into the map: 8 bytes a reference where an `ExtentKey` takes 16. A snapshot of a
/// million files read 16 MB of references, and the scan holds two or three trees' at
/// once. A reference is one word: its distance from the one before and its size, in
/// 4 KiB units. One whose numbers do not fit so (not aligned, or a distance of 2^46
/// units and more) takes three words: a marker, then its two numbers as they are.
///
/// LEB128 numbers took 3 bytes a reference, but packing and unpacking them cost a
/// fifth more instructions for a whole first listing; a word costs what an
/// `ExtentKey` appended to an array did.
public struct PackedReferences: Sendable, Equatable {
    private(set) var words: [UInt64] = []
    public private(set) var count = 0
    private var last: UInt64 = 0

    /// Low bit set: the next two words are a reference's bytenr and size.
    private static var marker: UInt64 { 1 }
    /// Sizes in units take 16 bits (btrfs's largest extent, 128 MiB, is 32,768 units);
    /// the zigzagged distance takes the 47 above them.
    private static var sizeBits: UInt64 { 16 }
    private static var distanceLimit: UInt64 { 1 << 47 }

    public init(reservingCapacity: Int = 0) { words.reserveCapacity(reservingCapacity) }

    /// The packed form of `references`, in their order.
    public init(_ references: some Sequence<ExtentKey>) {
        for reference in references { append(reference) }
    }

    /// Called once a reference from the tree reader's loop (callgrind: 41 instructions a
    /// reference, 2.1 G for a million-file first listing; `@inlinable` did not inline it).
    public mutating func append(_ reference: ExtentKey) {
        let units = reference.diskBytes >> 12
        let distance = zigzag((reference.diskBytenr >> 12) &- (last >> 12))
        if (reference.diskBytenr | reference.diskBytes) & 4095 == 0 && units < 1 << Self.sizeBits
            && distance < Self.distanceLimit
        {
            words.append(distance << (Self.sizeBits + 1) | units << 1)
        } else {
            words.append(contentsOf: [Self.marker, reference.diskBytenr, reference.diskBytes])
        }
        last = reference.diskBytenr
        count += 1
    }

    /// Calls `body` with the references in order, a batch of up to 1,024 at a time.
    public func forEachBatch(_ body: (UnsafeBufferPointer<ExtentKey>) -> Void) {
        let batch = 1024
        withUnsafeTemporaryAllocation(of: ExtentKey.self, capacity: batch) { room in
            let keys = room.baseAddress!
            words.withUnsafeBufferPointer { words in
                let sizeMask: UInt64 = 1 << Self.sizeBits - 1
                var at = 0
                var last: UInt64 = 0
                while at < words.count {
                    var filled = 0
                    while filled < batch && at < words.count {
                        let word = words[at]
                        if word & Self.marker == 0 {
                            last = ((last >> 12) &+ unzigzag(word >> (Self.sizeBits + 1))) << 12
                            let size = (word >> 1) & sizeMask
                            (keys + filled).initialize(to: ExtentKey(diskBytenr: last, diskBytes: size << 12))
                            at += 1
                        } else {
                            last = words[at + 1]
                            (keys + filled).initialize(to: ExtentKey(diskBytenr: last, diskBytes: words[at + 2]))
                            at += 3
                        }
                        filled += 1
                    }
                    body(UnsafeBufferPointer(start: keys, count: filled))
                }
            }
        }
    }

    /// The references, unpacked (tests, and callers that need them all at once).
    public var unpacked: [ExtentKey] {
        var references: [ExtentKey] = []
        references.reserveCapacity(count)
        forEachBatch { references.append(contentsOf: $0) }
        return references
    }
}
