/// How the sizes of snapshots are found.
public enum SizeMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// Quota numbers when quotas are on and consistent, else exact (root; else none):
    /// sizes on a default btrfs, where quotas are off. Never the mode a listing reports.
    case auto
    /// No sizes: fastest.
    case none
    /// From btrfs qgroups, when quotas are enabled and consistent.
    case quota
    /// From the extent trees, exact without quotas (slow, root only).
    case exact
}
