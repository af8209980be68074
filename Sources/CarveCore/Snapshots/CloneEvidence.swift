/// What an item rewritten since a writable snapshot was taken says of the snapshot:
/// written to (a clone in use), or only read. btrfs rewrites an inode's item when a read
/// updates its access time as much as when a change sets its change time, so the item's
/// transaction alone cannot tell; these fields can.
public enum CloneEvidence {
    /// Coarse timestamps lag the clock by up to a tick (1/HZ, 10 ms at HZ=100), and a
    /// change time may be fine-grained where the snapshot's creation time is coarse: a
    /// change time this close to the creation time may come from just before it.
    public static let tick = 0.02

    /// An inode item rewritten since the snapshot's creating transaction. It was written
    /// to when the inode was created since (`inodeGeneration`, its creating transaction,
    /// is later than the snapshot's), or its change time lies clearly after the snapshot's
    /// creation. A change time within a tick of the creation is ambiguous: a read then
    /// moves the access time past it (as relatime does whenever atime ≤ ctime), a change
    /// (chmod, rename, unlink) leaves the access time where it was.
    public static func inodeWasWritten(
        inodeGeneration: UInt64, snapshotGeneration: UInt64, changed ctime: Double, accessed atime: Double,
        snapshotCreated otime: Double
    ) -> Bool {
        if inodeGeneration > snapshotGeneration { return true }
        if ctime >= otime + tick { return true }
        if ctime < otime - 0.000_001 { return false }
        return atime <= ctime
    }

    /// A file extent item whose data was written in a transaction after the snapshot's:
    /// written to, whatever the times say.
    public static func extentWasWritten(extentGeneration: UInt64, snapshotGeneration: UInt64) -> Bool {
        extentGeneration > snapshotGeneration
    }
}
