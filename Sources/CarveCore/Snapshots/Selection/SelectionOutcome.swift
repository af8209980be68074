/// What a `SnapshotSelection` decides about one filesystem's subvolumes (positions
/// in the array it was given), so a listing, an explanation and a plan read one answer.
public struct SelectionOutcome: Sendable {
    /// The snapshots the identity criteria match (`--manager`, `--source`, `--match`, `--cleanup`).
    public var considered: [Int]
    /// The snapshots retention keeps, by id, with the rules that keep them.
    public var keptBy: [UInt64: [RetentionReason]]
    /// The snapshots taken, in order.
    public var selected: [Int]
    /// snapper pre/post pairs the criteria split and the selection kept whole:
    /// (the half the criteria took, its partner).
    public var splitPairs: [(Int, Int)]
    /// One line for each such pair, for stderr or the plan.
    public var pairNotes: [String]
}
