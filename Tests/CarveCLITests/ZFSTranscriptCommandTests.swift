@testable import CarveCLI
import CarveCore
import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// carve in-process against OpenZFS 2.1, 2.2 and 2.3 as their transcripts show them
/// (`Tests/Fixtures/zfs`): the pool of the zfs-fuse integration tests, with what only
/// OpenZFS has: `list -p`, the `clones` property, `holds -H`, `destroy -nvp`, comma lists,
/// `freeing`. The same cases as on zfs-fuse; the calls carve made are the transcript's.
@Suite struct ZFSTranscriptCommandTests {
    static let versions = ["openzfs-2.1", "openzfs-2.2", "openzfs-2.3"]

    final class Harness {
        let transcript: ZFSTranscript
        let lockPath = NSTemporaryDirectory() + "carve-test-lock-\(UUID().uuidString)"

        init(_ name: String) throws { transcript = try ZFSTranscript(named: name) }
        init(_ transcript: ZFSTranscript) { self.transcript = transcript }
        deinit { try? FileManager.default.removeItem(atPath: lockPath) }

        /// 2026-11-23 00:00 UTC, a day after the newest snapshot.
        static let now = Date(timeIntervalSince1970: 1_795_392_000)

        /// An LVM thin pool beside ZFS, when a test gives lvs's report.
        var lvs: String?

        func run(_ arguments: [String], runner: ZFSTool.Runner? = nil) -> RunResult {
            let captured = CapturedText()
            var services = Services(
                devices: FakeDeviceSource(), snapshots: FakeSnapshotBackend(), clock: FixedClock(now: Self.now),
                output: captured, isRoot: true, mounts: FakeMountTable())
            let zfs = ZFSBackend(
                tool: ZFSTool(runner: runner ?? transcript.runner), mountTable: FakeMountTable(), timeZone: .utc,
                sends: { [:] })
            if let lvs { services.backends.register(listingOnly: LVMThinBackend(report: { _ in lvs }), for: .lvmThin) }
            services.backends.register(zfs, for: .zfs)
            let deletion = DeletionServices(lock: FileDeletionLock(path: lockPath))
            let status = DeletionServices.$current.withValue(deletion) {
                Services.$current.withValue(services) { CarveMain.run(arguments) }
            }
            return RunResult(status: status, stdout: captured.stdout, stderr: captured.stderr)
        }

        /// The `zfs destroy` runs, dry runs (`-n`) aside.
        var destroys: [[String]] {
            transcript.calls.filter { $0.count > 2 && $0[0] == "zfs" && $0[1] == "destroy" && $0[2] != "-n" }
        }
    }

    static let auto = ZFSScenario.auto
    static let sanoid = ZFSScenario.sanoid
    /// What every bulk deletion takes, one `zfs destroy` per dataset: all but the held
    /// snapshot, the clone's origin and the newest syncoid snapshot.
    static let everyDestroy = [
        ["zfs", "destroy", "tank/auto@" + auto.joined(separator: ",")],
        ["zfs", "destroy", "tank/sanoid@" + sanoid.joined(separator: ",")],
        ["zfs", "destroy", "tank/plain@syncoid_host1_2026-11-21:00:00:00-GMT00:00,before upgrade"],
    ]

    func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    @Test(arguments: versions) func listShowsEveryOwnerAndTheZFSFields(version: String) throws {
        let harness = try Harness(version)
        let result = harness.run(["snapshots", "list", "tank", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = json(result.stdout)["snapshots"] as? [[String: Any]] ?? []
        let byPath = Dictionary(uniqueKeysWithValues: rows.map { ($0["path"] as? String ?? "", $0) })
        #expect(byPath.count == 14)
        for name in Self.auto { #expect(byPath["tank/auto@\(name)"]?["manager"] as? String == "zfs-auto-snapshot") }
        for name in Self.sanoid { #expect(byPath["tank/sanoid@\(name)"]?["manager"] as? String == "sanoid") }
        #expect(byPath["tank/plain@before upgrade"]?["manager"] as? String == "plain")
        #expect(byPath["tank/plain@held"]?["hold_tags"] as? [String] == ["keep"])
        #expect(byPath["tank/plain@base"]?["clones"] as? [String] == ["tank/work"])
        #expect(byPath["tank/plain@syncoid_host1_2026-11-22:00:00:00-GMT00:00"]?["chain_parent"] as? Bool == true)
        #expect((byPath["tank/auto@\(Self.auto[0])"]?["exclusive"] as? Int) == 655_360)
        #expect(byPath["tank/auto@\(Self.auto[0])"]?["id"] as? Int == 2001, "the guid")
        #expect(harness.transcript.unknownCalls.isEmpty, "\(harness.transcript.unknownCalls)")
    }

    @Test(arguments: versions) func bulkDeletionIsOneDestroyPerDataset(version: String) throws {
        let harness = try Harness(version)
        let result = harness.run(["snapshots", "delete", "--filesystem", "tank", "--all", "--yes", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(harness.destroys == Self.everyDestroy)
        let report = json(result.stdout)
        let protected = (report["protected"] as? [[String: Any]] ?? []).map { $0["path"] as? String ?? "" }
        #expect(
            Set(protected)
                == ["tank/plain@base", "tank/plain@held", "tank/plain@syncoid_host1_2026-11-22:00:00:00-GMT00:00"])
        let reasons = (report["protected"] as? [[String: Any]] ?? []).map { $0["reason"] as? String ?? "" }
        #expect(reasons.contains { $0.contains("user hold (keep)") })
        #expect(reasons.contains { $0.contains("origin of tank/work") })
        #expect(reasons.contains { $0.contains("the newest syncoid snapshot of tank/plain") })

        let older = try Harness(version)
        #expect(older.run(["snapshots", "delete", "--filesystem", "tank", "--older-than", "0d", "--yes"]).status == 0)
        #expect(older.destroys == Self.everyDestroy)
    }

    @Test(arguments: versions) func keepDailyCountsPerSeries(version: String) throws {
        let harness = try Harness(version)
        let result = harness.run(["snapshots", "delete", "--filesystem", "tank", "--keep-daily", "2", "--yes"])
        #expect(result.status == 0, "\(result.stderr)")
        // Two days of each series: zfs-auto-snapshot's daily and hourly labels, sanoid's types.
        #expect(
            harness.destroys == [
                [
                    "zfs", "destroy",
                    "tank/auto@zfs-auto-snap_daily-2026-11-20-0000,zfs-auto-snap_hourly-2026-11-22-0900",
                ],
                ["zfs", "destroy", "tank/sanoid@autosnap_2026-11-20_00:00:01_daily"],
            ])
    }

    @Test(arguments: versions) func aDryRunSaysWhatTheSetFreesFromZFS(version: String) throws {
        let harness = try Harness(version)
        let result = harness.run(["snapshots", "delete", "--filesystem", "tank", "--all", "--dry-run", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(harness.destroys.isEmpty, "a dry run destroys nothing")
        // What the three `zfs destroy -nvp` runs said, added up (the transcript's reclaim lines).
        let said = [3_407_872, 2_752_512, 1_310_720]
        #expect(json(result.stdout)["estimated_reclaim"] as? Int == said.reduce(0, +))
        #expect(result.stderr.contains("from zfs destroy -nvp (exact for the set)"))
    }

    @Test(arguments: versions) func waitWaitsForThePoolsFreeingToReachZero(version: String) throws {
        let harness = try Harness(version)
        let result = harness.run([
            "snapshots", "delete", "--filesystem", "tank", "--keep-daily", "2", "--yes", "--wait",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let freeing = harness.transcript.calls.filter { $0.contains("freeing") }
        #expect(freeing.count == 2, "asked until it read 0: \(freeing)")
    }

    @Test(arguments: versions) func namedHoldsAndClonesAreRefusedAndUnknownNamesAreBadInput(version: String) throws {
        let harness = try Harness(version)
        let held = harness.run(["snapshots", "delete", "tank/plain@held", "--yes"])
        #expect(held.status == 1 && (held.stdout + held.stderr).contains("user hold (keep)"))
        #expect((held.stdout + held.stderr).contains("dataset is busy"))
        let origin = harness.run(["snapshots", "delete", "tank/plain@base", "--yes"])
        #expect(origin.status == 1 && (origin.stdout + origin.stderr).contains("snapshot has dependent clones"))
        #expect(harness.destroys.isEmpty)
        let unknown = harness.run(["snapshots", "list", "tank/nope"])
        #expect(unknown.status == 64 && unknown.stderr.contains("cannot open 'tank/nope': dataset does not exist"))
        let snapshot = harness.run(["snapshots", "delete", "tank/plain@nope", "--yes"])
        #expect(snapshot.status == 64 && snapshot.stderr.contains("dataset does not exist"))
    }

    @Test func withoutZFSANamedDatasetNamesThePackage() {
        let harness = Harness(ZFSTranscript(source: "none", entries: []))
        let result = harness.run(["snapshots", "list", "tank/home"], runner: { _ in nil })
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("zfsutils-linux"))
        // Listing everything on a machine without ZFS is no error, nor where OpenZFS's module
        // is not loaded (zpool's words from libzfs_error_init): there is no pool then.
        #expect(harness.run(["snapshots", "list"], runner: { _ in nil }).status == 0)
        let notLoaded = ZFSTool.Run(
            status: 1, stdout: "",
            stderr: "The ZFS modules are not loaded.\nTry running 'modprobe zfs' as root to load them.\n")
        let quiet = harness.run(["snapshots", "list"], runner: { _ in notLoaded })
        #expect(quiet.status == 0 && !quiet.stderr.contains("zfs"), "\(quiet.stderr)")
        // LVM's VG/POOL is LVM's, whatever ZFS could not tell.
        harness.lvs =
            #"{"report": [{"lv": [{"lv_name":"pool", "vg_name":"vg0", "lv_attr":"twi-aotz--", "origin":"", "pool_lv":"", "lv_time":"2026-10-01 09:00:00 +0000", "lv_size":"1024", "data_percent":"1.00", "lv_uuid":"p"}, {"lv_name":"root", "vg_name":"vg0", "lv_attr":"Vwi-aotz--", "origin":"", "pool_lv":"pool", "lv_time":"2026-10-01 09:00:00 +0000", "lv_size":"1024", "data_percent":"1.00", "lv_uuid":"r"}]}]}"#
        let lvm = harness.run(["snapshots", "list", "vg0/pool"], runner: { _ in nil })
        #expect(lvm.status == 0, "\(lvm.stderr)")
    }

    @Test func aSuspendedPoolIsLeftOutWithAWarning() throws {
        let transcript = try ZFSTranscript(named: "openzfs-2.2")
        let harness = Harness(transcript)
        let suspended = ZFSTool.Run(status: 0, stdout: "tank\t8888\tSUSPENDED\n")
        let runner = transcript.runner
        let result = harness.run(["snapshots", "list"]) { arguments in
            arguments == ["zpool", "list", "-H", "-o", "name,guid,health"] ? suspended : try runner(arguments)
        }
        // Nothing else to list here: the run fails, saying why; beside a btrfs it is a warning.
        #expect(result.status == 1 && result.stderr.contains("pool tank is SUSPENDED"), "\(result.stderr)")
        #expect(!transcript.calls.contains { $0.contains("-r") }, "a suspended pool's datasets are never asked for")
    }

    @Test func aListZFSRefusesIsTriedOneByOneForZFSsReason() throws {
        // A hold taken on one of them after carve looked: ZFS destroys none of the list.
        let transcript = try ZFSTranscript(named: "openzfs-2.2")
        let list = "tank/auto@zfs-auto-snap_daily-2026-11-20-0000,zfs-auto-snap_hourly-2026-11-22-0900"
        let busy = "cannot destroy snapshot tank/auto@zfs-auto-snap_daily-2026-11-20-0000: dataset is busy\n"
        transcript.add(["zfs", "destroy", "tank/auto@zfs-auto-snap_daily-2026-11-20-0000"], status: 1, stderr: busy)
        transcript.add(["zfs", "destroy", "tank/auto@zfs-auto-snap_hourly-2026-11-22-0900"])
        let runner = transcript.runner
        let harness = Harness(transcript)
        let result = harness.run(["snapshots", "delete", "--filesystem", "tank", "--keep-daily", "2", "--yes"]) {
            arguments in
            arguments == ["zfs", "destroy", list]
                ? ZFSTool.Run(status: 1, stdout: "", stderr: busy) : try runner(arguments)
        }
        #expect(result.status == 4, "one failed, the others went: \(result.stderr)")
        #expect(result.stderr.contains("dataset is busy"))
        // (The refused list went to the wrapper above, not to the transcript.)
        #expect(
            harness.destroys == [
                ["zfs", "destroy", "tank/auto@zfs-auto-snap_daily-2026-11-20-0000"],
                ["zfs", "destroy", "tank/auto@zfs-auto-snap_hourly-2026-11-22-0900"],
                ["zfs", "destroy", "tank/sanoid@autosnap_2026-11-20_00:00:01_daily"],
            ])
    }

    @Test(arguments: versions) func thinTakesTheOldestUntilEnoughComesBack(version: String) throws {
        let harness = try Harness(version)
        let result = harness.run(["snapshots", "thin", "tank", "--free", "1M", "--dry-run", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let deleted = (json(result.stdout)["deleted"] as? [[String: Any]] ?? []).map { $0["path"] as? String ?? "" }
        // 640K each (their used): the two oldest the rules allow make 1M.
        #expect(deleted == ["tank/auto@\(Self.auto[0])", "tank/sanoid@\(Self.sanoid[0])"])
        #expect(result.stderr.contains("exact for the set"))
        let available = harness.run(["snapshots", "thin", "tank", "--until-available", "400M", "--dry-run"])
        #expect(
            available.status == 0 && available.stdout.contains("nothing to delete: 476.8M available on tank"),
            "\(available.stdout)")
    }
}
