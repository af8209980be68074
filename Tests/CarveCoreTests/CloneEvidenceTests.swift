import CarveCore
import Testing

/// An inode or extent rewritten since a writable snapshot was taken: written to, or
/// only read (an access time moved). The snapshot was taken at t=1000 in transaction 50.
@Suite struct CloneEvidenceTests {
    static let otime = 1_000.0

    @Test(
        arguments: [
            // (inode's creating transaction, ctime, atime, written)
            (40, 990.0, 1_500.0, false), // read long after a change long before: atime only
            (40, 1_000.0, 1_500.0, false), // changed in the snapshot's own tick, read later
            (40, 1_000.005, 1_500.0, false), // a fine-grained ctime just before a coarse otime
            (40, 1_000.0, 990.0, true), // changed in the tick, not read since: chmod, rename
            (40, 1_000.005, 1_000.005, true),
            (40, 1_000.02, 1_500.0, true), // clearly after, whatever the access time
            (40, 1_200.0, 900.0, true),
            (51, 990.0, 1_500.0, true), // created since the snapshot
            (50, 990.0, 1_500.0, false), // created in the snapshot's own transaction
        ] as [(UInt64, Double, Double, Bool)])
    func anInodeItem(created: UInt64, ctime: Double, atime: Double, written: Bool) {
        #expect(
            CloneEvidence.inodeWasWritten(
                inodeGeneration: created, snapshotGeneration: 50, changed: ctime, accessed: atime,
                snapshotCreated: Self.otime) == written)
    }

    @Test func dataWrittenAfterTheSnapshotsTransactionIsAWrite() {
        #expect(CloneEvidence.extentWasWritten(extentGeneration: 51, snapshotGeneration: 50))
        #expect(!CloneEvidence.extentWasWritten(extentGeneration: 50, snapshotGeneration: 50))
        #expect(!CloneEvidence.extentWasWritten(extentGeneration: 12, snapshotGeneration: 50))
    }
}
