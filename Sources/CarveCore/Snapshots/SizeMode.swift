/// How the sizes of snapshots are found.
public enum SizeMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// No sizes: fastest.
    case none
    /// From btrfs qgroups, when quotas are enabled and consistent.
    case quota
    /// From the extent trees, exact without quotas (slow, root only).
    case exact
}
