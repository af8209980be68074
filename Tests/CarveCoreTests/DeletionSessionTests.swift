import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// The session's order of safety steps, told through its hooks and a recording lock.
@Suite struct DeletionSessionTests {
    final class Journal: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [String] = []
        func add(_ entry: String) { lock.lock(); entries.append(entry); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return entries }
    }

    struct RecordingLock: DeletionLock {
        let journal: Journal
        struct Holder: LockHolder {
            let journal: Journal
            func release() { journal.add("unlock") }
        }
        func acquire(timeout: Double) throws -> any LockHolder {
            journal.add("lock")
            return Holder(journal: journal)
        }
    }

    let fixture = DeletionFixture()
    let journal = Journal()

    func session(dryRun: Bool = false) -> DeletionSession {
        DeletionSession(
            backend: fixture.backend, lock: RecordingLock(journal: journal), lockTimeout: 0,
            rules: DeletionRules(), dryRun: dryRun, wait: false)
    }

    func hooks(confirm: @escaping (DeletionPlan) throws -> Void = { _ in }) -> DeletionSession.Hooks {
        DeletionSession.Hooks(
            note: { [journal] in journal.add("note \($0)") },
            confirm: { [journal] plan in
                journal.add("confirm \(plan.toDelete.count)"); try confirm(plan); return false
            },
            outcome: { [journal] outcome, index, total in
                journal.add("outcome \(outcome.snapshot.subvolume.id) \(index)/\(total)")
            },
            deleted: { [journal] in journal.add("deleted") })
    }

    @Test func confirmThenLockThenDeleteOneAfterAnother() throws {
        let plan = DeletionPlan.make(selected: fixture.planned([300, 301]), rules: DeletionRules())
        let result = try session().run(plan, hooks: hooks())
        #expect(journal.all == ["confirm 2", "lock", "outcome 300 1/2", "outcome 301 2/2", "deleted", "unlock"])
        #expect(result.report?.done.count == 2)
        #expect(!fixture.remainingIDs.contains(300) && !fixture.remainingIDs.contains(301))
    }

    @Test func aRefusedConfirmationTakesNoLockAndDeletesNothing() {
        let plan = DeletionPlan.make(selected: fixture.planned([300]), rules: DeletionRules())
        #expect(throws: RuntimeError.self) {
            try session().run(
                plan, hooks: hooks(confirm: { _ in throw RuntimeError("not confirmed: nothing deleted") }))
        }
        #expect(journal.all == ["confirm 1"])
        #expect(fixture.remainingIDs.contains(300))
    }

    @Test func aDryRunNeitherAsksNorLocksNorDeletes() throws {
        let plan = DeletionPlan.make(selected: fixture.planned([300]), rules: DeletionRules())
        let result = try session(dryRun: true).run(plan, hooks: hooks())
        #expect(journal.all.isEmpty && result.report == nil)
        #expect(fixture.remainingIDs.contains(300))
    }
}
