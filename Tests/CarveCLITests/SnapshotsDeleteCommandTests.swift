@testable import CarveCLI
import CarveCore
import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// carve delete/thin in-process against the fake backend: /mnt with a source @home
/// and snapshots 300…305 (60, 50, …, 10 days old, 10 MiB exclusive each), snapper
/// root:1 (important) and root:2 at 310/311, and a plain subvolume 256.
final class DeleteHarness: @unchecked Sendable {
    typealias F = SnapshotFixtures
    let backend: FakeSnapshotBackend
    let lockPath: String
    var stdinIsTerminal = false
    var stderrIsTerminal = false
    var answer: String?
    /// Runs while the prompt waits for its answer, as the world goes on meanwhile.
    var whilePromptWaits: (@Sendable () -> Void)?
    var isRoot = true
    /// Snapshot schedules, with /mnt in the mount table so they can be matched to it.
    var schedules: SnapshotSchedules?
    var syslog: [String] = []
    /// Cancels the run after this many deletions, as a Ctrl-C would.
    var interruptAfter: Int?
    /// Which processes hold which snapshots; nil: none is looked for.
    var holders: FakeVolumeHolders?

    init(quotas: Bool = true, extra: [Volume] = []) {
        let home = F.subvolume(256, path: "@home")
        var subvolumes =
            [home]
            + (0..<6).map { index in
                F.snapshot(
                    300 + UInt64(index), path: "snaps/home.\(index)", of: home, daysAgo: Double(60 - index * 10),
                    exclusive: 10 << 20, referenced: 20 << 20)
            }
        subvolumes.append(
            F.snapshot(
                310, path: ".snapshots/1/snapshot", of: nil, daysAgo: 70,
                metadata: ManagerMetadata(
                    manager: .snapper, config: "root", number: 1, important: true, metadataPath: "/mnt/.snapshots/1"),
                exclusive: 1 << 20))
        subvolumes.append(
            F.snapshot(
                311, path: ".snapshots/2/snapshot", of: nil, daysAgo: 65,
                metadata: ManagerMetadata(
                    manager: .snapper, config: "root", number: 2, metadataPath: "/mnt/.snapshots/2"), exclusive: 1 << 20
            ))
        subvolumes += extra
        backend = FakeSnapshotBackend([
            .init(
                filesystem: F.filesystem(), subvolumes: subvolumes,
                quotaProblem: quotas ? nil : "quotas are off on /mnt")
        ])
        lockPath = NSTemporaryDirectory() + "carve-test-lock-\(UUID().uuidString)"
    }

    deinit { try? FileManager.default.removeItem(atPath: lockPath) }

    static let mnt = MountEntry(
        mountID: 40, parentID: 1, number: DeviceNumber(major: 0, minor: 40), root: "/", mountpoint: "/mnt",
        options: ["rw"], fsType: "btrfs", source: "/dev/sdb1", superOptions: ["rw"])

    var remaining: [UInt64] { backend.filesystems[0].subvolumes.map(\.id) }

    func run(_ arguments: [String]) -> RunResult {
        let interrupt = InterruptingSink(after: interruptAfter)
        // The sink holds the run's signal closure, which holds the sink as its output.
        defer { interrupt.disarm() }
        let deletion = DeletionServices(
            lock: FileDeletionLock(path: lockPath),
            catchInterrupts: { flag, onSignal in interrupt.arm(flag, onSignal) },
            systemLog: { [self] line in syslog.append(line) },
            readAnswer: { [answer, whilePromptWaits] in
                whilePromptWaits?()
                return answer
            })
        let captured = CapturedText()
        interrupt.captured = captured
        var services = Services(
            devices: FakeDeviceSource(), snapshots: backend, clock: FixedClock(), output: interrupt,
            isRoot: isRoot, stdinIsTerminal: stdinIsTerminal, stderrIsTerminal: stderrIsTerminal,
            mounts: FakeMountTable(schedules == nil ? [] : [Self.mnt]),
            snapshotSchedules: schedules.map(FixedSnapshotSchedules.init))
        services.holders = holders
        let status = DeletionServices.$current.withValue(deletion) {
            Services.$current.withValue(services) {
                CarveMain.run(["snapshots"] + arguments)
            }
        }
        return RunResult(status: status, stdout: captured.stdout, stderr: captured.stderr)
    }
}

/// Captures output, and stands in for Ctrl-C: after `after` audit lines of deleted
/// snapshots it sets the run's cancellation flag, as the signal handler would.
final class InterruptingSink: OutputSink, @unchecked Sendable {
    private let lock = NSLock()
    private let after: Int?
    private var deleted = 0
    private var flag: CancellationFlag?
    private var onSignal: (@Sendable () -> Void)?
    var captured = CapturedText()

    init(after: Int?) { self.after = after }

    func arm(_ flag: CancellationFlag, _ onSignal: @escaping @Sendable () -> Void) {
        lock.lock(); self.flag = flag; self.onSignal = onSignal; lock.unlock()
    }

    func disarm() { lock.lock(); flag = nil; onSignal = nil; lock.unlock() }

    func write(_ text: String) { captured.appendOut(text) }

    func writeError(_ text: String) {
        captured.appendErr(text)
        guard text.hasPrefix("carve: deleted snapshot") else { return }
        lock.lock()
        deleted += 1
        let fire = deleted == after ? (flag, onSignal) : (nil, nil)
        lock.unlock()
        fire.0?.cancel()
        fire.1?()
    }
}

@Suite struct SnapshotsDeleteCommandTests {
    @Test func deletesBySelectionAndReportsJSON() throws {
        let harness = DeleteHarness()
        let result = harness.run(["delete", "--older-than", "35d", "--manager", "plain", "--yes", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(harness.remaining == [256, 303, 304, 305, 310, 311])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["dry_run"] as? Bool == false)
        // A log of runs says which carve ran when: FixedClock's 2026-11-01T00:00Z.
        #expect(json["carve_version"] as? String == CarveCommand.version)
        #expect(
            json["started"] as? String == "2026-11-01T00:00:00Z"
                && json["finished"] as? String == "2026-11-01T00:00:00Z")
        #expect((json["deleted"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [300, 301, 302])
        #expect(json["estimated_reclaim"] as? Int == 30 << 20)
        #expect(json["measured_reclaim"] is NSNull)
        #expect(result.stderr.contains("carve: deleted snapshot /mnt/snaps/home.0 (id 300)"))
    }

    @Test func aDryRunDeletesNothingAndTakesNoLock() {
        let harness = DeleteHarness()
        let result = harness.run(["delete", "--all", "--dry-run"])
        #expect(result.status == 0)
        #expect(harness.remaining.count == 9)
        #expect(result.stdout.contains("Would delete 7 snapshots, freeing at least 61M"))
        #expect(result.stdout.contains("snapper marked it important"))
        #expect(!harness.backend.calls.contains { if case .delete = $0 { true } else { false } })
    }

    @Test func aDryRunWithRetentionSaysWhyEachSurvivorSurvives() throws {
        let harness = DeleteHarness()
        let result = harness.run([
            "delete", "--manager", "plain", "--keep-last", "2", "--keep-monthly", "1", "--dry-run",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Would delete 4 snapshots"))
        #expect(
            result.stdout.contains(
                """
                Kept by the retention rules:
                  304 /mnt/snaps/home.4: last 2
                  305 /mnt/snaps/home.5: last 1, monthly 2026-10

                """))
        let json = try #require(
            try JSONSerialization.jsonObject(
                with: Data(
                    harness.run(
                        [
                            "delete", "--manager", "plain", "--keep-last", "2", "--keep-monthly", "1", "--dry-run",
                            "--json",
                        ]).stdout.utf8)) as? [String: Any])
        let kept = json["kept"] as? [[String: Any]] ?? []
        #expect(kept.compactMap { $0["id"] as? Int } == [304, 305])
        #expect(kept.last?["kept_by"] as? [String] == ["last 1", "monthly 2026-10"])
        #expect(harness.remaining.count == 9)
    }

    @Test func listExplainShowsEveryConsideredSnapshotWithItsDecision() throws {
        let harness = DeleteHarness()
        let result = harness.run([
            "list", "--manager", "plain", "--keep-last", "2", "--older-than", "45d", "--explain", "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let rows = json["snapshots"] as? [[String: Any]] ?? []
        #expect(json["carve_version"] as? String == CarveCommand.version)
        #expect(rows.compactMap { $0["id"] as? Int } == [300, 301, 302, 303, 304, 305])
        #expect(rows.compactMap { $0["decision"] as? String } == ["delete", "delete", "keep", "keep", "keep", "keep"])
        #expect(rows.compactMap { $0["kept_by"] as? [String] } == [[], [], [], [], ["last 2"], ["last 1"]])
        #expect(
            rows.allSatisfy {
                $0["date_source"] as? String == "otime" && $0["otime"] as? String == $0["created"] as? String
            })
        let table = harness.run([
            "list", "--manager", "plain", "--keep-last", "2", "--older-than", "45d", "--explain", "--output",
            "ID,DECISION,KEPT-BY",
        ])
        #expect(table.stdout.contains("302 keep     (not selected by the time filters)"), "\(table.stdout)")
        #expect(table.stdout.contains("305 keep     last 1"), "\(table.stdout)")
    }

    @Test func failuresAreReportedAndTheRestDeleted() throws {
        let harness = DeleteHarness()
        harness.backend.fail(.delete(301), with: FakeSnapshotBackend.errno(16))
        harness.backend.fail(.delete(302), with: FakeSnapshotBackend.errno(1))
        let result = harness.run(["delete", "--manager", "plain", "--yes", "--json"])
        #expect(result.status == 4)
        #expect(harness.remaining == [256, 301, 302, 310, 311])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let failed = try #require(json["failed"] as? [[String: Any]])
        #expect(failed.compactMap { $0["id"] as? Int } == [301, 302])
        #expect((failed[0]["error"] as? String)?.contains("EBUSY") == true)
        #expect(result.stderr.contains("cannot delete snapshot /mnt/snaps/home.2 (id 302)"))
    }

    @Test func namedSnapshotsByPathNumberAndIdAreDeletedWithSnapperMetadataAfter() {
        let harness = DeleteHarness()
        let result = harness.run(["delete", "/mnt/snaps/home.0", "root:2", "--id", "305", "--yes"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(harness.remaining == [256, 301, 302, 303, 304, 310])
        #expect(result.stderr.contains("removed its snapper metadata /mnt/.snapshots/2"))
        #expect(result.stdout.contains("deleted 3 snapshots, freeing at least 21M"))
    }

    @Test func aNamedProtectedSnapshotIsRefusedWithItsReason() {
        let harness = DeleteHarness()
        let result = harness.run(["delete", "root:1", "--yes"])
        #expect(result.status == 1)
        #expect(harness.remaining.contains(310))
        #expect(result.stdout.contains("snapper marked it important (use --include-important)"))
        #expect(harness.run(["delete", "root:1", "--yes", "--include-important"]).status == 0)
        #expect(!harness.remaining.contains(310))
    }

    @Test func nothingMatchedIsSuccess() {
        let harness = DeleteHarness()
        let result = harness.run(["delete", "--older-than", "400d", "--yes"])
        #expect(result.status == 0)
        #expect(result.stdout == "no snapshots matched\n")
    }

    @Test func anInterruptedRunReportsWhatItDidAndExits130() throws {
        let harness = DeleteHarness()
        harness.interruptAfter = 2
        let result = harness.run(["delete", "--manager", "plain", "--yes", "--json"])
        #expect(result.status == 130)
        #expect(harness.remaining == [256, 302, 303, 304, 305, 310, 311])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["interrupted"] as? Bool == true)
        #expect((json["deleted"] as? [Any])?.count == 2)
    }

    @Test func waitReportsTheMeasuredReclaim() throws {
        let harness = DeleteHarness()
        let result = harness.run(["delete", "--manager", "plain", "--older-than", "45d", "--yes", "--wait", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["measured_reclaim"] as? Int == 20 << 20)
        #expect(harness.backend.calls.contains(.waitForCleanup(SnapshotFixtures.filesystem().uuid)))
    }

    @Test func syslogGetsOneLinePerDeletedSnapshot() {
        let harness = DeleteHarness()
        _ = harness.run(["delete", "--manager", "plain", "--older-than", "45d", "--yes", "--syslog"])
        #expect(harness.syslog.count == 2)
        #expect(harness.syslog.first?.hasPrefix("deleted snapshot /mnt/snaps/home.0 (id 300") == true)
    }

    @Test func aProgressBarOnlyOnATerminal() {
        let harness = DeleteHarness()
        harness.stderrIsTerminal = true
        let result = harness.run(["delete", "--manager", "plain", "--yes"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("\r[###############...............] 3/6 deleted"))
        #expect(result.stderr.contains("\r\u{1B}[Kcarve: deleted snapshot /mnt/snaps/home.5 (id 305)\n"))
        let plain = DeleteHarness().run(["delete", "--manager", "plain", "--yes"])
        #expect(!plain.stderr.contains("\r"))
    }

    @Test func withoutATerminalOrYesNothingIsDeleted() {
        let harness = DeleteHarness()
        let result = harness.run(["delete", "--all"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("stdin is not a terminal (pass --yes)"))
        #expect(harness.remaining.count == 9)
    }

    @Test func aTerminalIsAsked() {
        let harness = DeleteHarness()
        harness.stdinIsTerminal = true
        harness.answer = "n"
        #expect(harness.run(["delete", "/mnt/snaps/home.0"]).status == 1)
        #expect(harness.remaining.contains(300))
        harness.answer = "y"
        let result = harness.run(["delete", "/mnt/snaps/home.0"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("Delete 1 snapshot, freeing at least 10M? [y/N]"))
        #expect(!harness.remaining.contains(300))
    }

    @Test func notRootExits77BeforeAnything() {
        let harness = DeleteHarness()
        harness.isRoot = false
        let result = harness.run(["delete", "--all", "--yes"])
        #expect(result.status == 77)
        #expect(harness.backend.calls.isEmpty)
    }

    @Test func anotherCarveHoldingTheLockMeans75() throws {
        let harness = DeleteHarness()
        let holder = try FileDeletionLock(path: harness.lockPath).acquire(timeout: 0)
        defer { holder.release() }
        let result = harness.run(["delete", "--all", "--yes"])
        #expect(result.status == 75)
        #expect(result.stderr.contains("pid \(getpid())"))
        #expect(harness.remaining.count == 9)
        holder.release()
        #expect(harness.run(["delete", "--all", "--yes", "--lock-timeout", "1"]).status == 0)
    }

    @Test(arguments: [
        ["delete"], ["delete", "--yes"], ["delete", "/mnt/nope", "--yes"], ["delete", "root:17-3", "--yes"],
        ["delete", "home:1", "--yes"], ["delete", "root:9", "--yes"], ["delete", "--id", "999", "--yes"],
        ["delete", "--all", "--dry-run", "--wait"], ["delete", "--all", "--lock-timeout", "-1", "--yes"],
        ["thin", "/mnt", "--free", "0", "--yes"], ["thin", "/mnt", "--free=-5G", "--yes"],
        ["thin", "/mnt", "--free", "10XB", "--yes"], ["thin", "/mnt", "--free", "1G", "--order", "newest"],
    ])
    func badInputIsOneLineAndExit64(arguments: [String]) {
        let harness = DeleteHarness()
        let result = harness.run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix("carve: "))
        #expect(harness.remaining.count == 9)
    }
}
