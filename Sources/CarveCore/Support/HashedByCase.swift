/// A string-valued enum hashed and compared by its case, not by its text.
///
/// `RawRepresentable`'s defaults hash the raw value: every set membership test or
/// dictionary lookup of such an enum built its string and ran SipHash over its bytes
/// (the device listing asks thousands of them, issue 33). A payload-free enum of up
/// to 256 cases is stored as its case's index, one byte, and that byte names the case.
public protocol HashedByCase: RawRepresentable, Hashable {}

extension HashedByCase {
    // Inlinable: other modules compare cases in their inner loops (a listing asks each
    // row's filesystem kind several times), and a call each cost more than the compare.
    @inlinable public static func == (lhs: Self, rhs: Self) -> Bool { lhs.caseIndex == rhs.caseIndex }
    @inlinable public func hash(into hasher: inout Hasher) { hasher.combine(caseIndex) }
    // Sets and dictionaries ask this one, not hash(into:); RawRepresentable's would hash the text.
    @inlinable public func _rawHashValue(seed: Int) -> Int { Int(caseIndex)._rawHashValue(seed: seed) }

    /// The case's index in declaration order.
    @inlinable var caseIndex: UInt8 {
        withUnsafeBytes(of: self) { bytes in bytes.count == 1 ? bytes[0] : 0 }
    }
}
