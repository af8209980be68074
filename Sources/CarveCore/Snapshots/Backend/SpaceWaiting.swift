/// The ability to tell how much space a filesystem uses, and to wait until what
/// deleted volumes held is free again (btrfs frees it lazily, after a commit).
public protocol SpaceWaiting: Sendable {
    /// Commits and waits until the filesystem has dropped every volume in `ids`.
    func waitForCleanup(of ids: [UInt64], on filesystem: Filesystem) throws
    /// How much of the filesystem is used and free now.
    func spaceUsage(of filesystem: Filesystem) throws -> SpaceUsage
}
