/// What `snapshots list --explain` says about one snapshot the identity criteria match.
public struct SnapshotExplanation: Sendable, Hashable {
    /// True when the selection takes it (delete would delete it).
    public var selected: Bool
    /// The retention rules that keep it; empty when none does.
    public var keptBy: [RetentionReason]
    /// Kept because its snapper pre/post partner is: the partner's number.
    public var pairedWith: Int?

    public init(selected: Bool, keptBy: [RetentionReason], pairedWith: Int? = nil) {
        self.selected = selected; self.keptBy = keptBy; self.pairedWith = pairedWith
    }

    public var decision: String { selected ? "delete" : "keep" }
}
