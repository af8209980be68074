import CarveCore
import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// The snapshot schedules read from a fixture host tree: unit-file state in /etc and
/// /run, snapper's configs, btrbk.conf, timeshift's cron files and json, carve's policies.
@Suite struct SnapshotScheduleFilesTests {
    static let wants = "etc/systemd/system/timers.target.wants/"

    func host(_ files: [String: String], links: [String: String]) throws -> String {
        try Integration.makeTree(files, links: links)
    }

    @Test func enabledTimersAndWhatTheySnapshotAreRead() throws {
        let root = try host(
            [
                "etc/snapper/configs/root": "SUBVOLUME=\"/\"\nTIMELINE_CREATE=\"yes\"\n",
                "etc/snapper/configs/data": "SUBVOLUME=\"/data\"\nTIMELINE_CREATE=\"no\"\n",
                "etc/btrbk/btrbk.conf": "snapshot_dir _btrbk_snap\nvolume /mnt/pool\n  subvolume home\n",
                "etc/cron.d/timeshift-hourly": "0 * * * * root timeshift --check --scripted\n",
                "etc/cron.d/timeshift-boot": "@reboot root sleep 10m && timeshift --create --scripted --tags B\n",
                "etc/cron.d/e2scrub_all": "",
                "etc/timeshift/timeshift.json":
                    "{\n  \"backup_device_uuid\" : \"5e3c1d7a-2b4f\",\n  \"parent_device_uuid\" : \"\"\n}\n",
                "etc/carve/prune/home.conf": "# policy\n--filesystem /home\n--keep-daily 7\n",
            ],
            links: [
                Self.wants + "snapper-timeline.timer": "/lib/systemd/system/snapper-timeline.timer",
                Self.wants + "btrbk.timer": "/lib/systemd/system/btrbk.timer",
                Self.wants + "carve-prune@home.timer": "/lib/systemd/system/carve-prune@.timer",
                "run/systemd/system/timers.target.wants/carve-prune@gone.timer":
                    "/lib/systemd/system/carve-prune@.timer",
                Self.wants + "apt-daily.timer": "/lib/systemd/system/apt-daily.timer",
            ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let schedules = SnapshotScheduleFiles(host: HostRoot(root)).schedules()
        #expect(
            schedules.enabledTimers == [
                "btrbk.timer", "carve-prune@gone.timer", "carve-prune@home.timer", "snapper-timeline.timer",
            ])
        #expect(schedules.snapperTimelines == [SnapperTimeline(name: "root", subvolume: "/")])
        #expect(schedules.btrbkVolumes == ["/mnt/pool"])
        #expect(schedules.timeshiftCronFiles == ["/etc/cron.d/timeshift-boot", "/etc/cron.d/timeshift-hourly"])
        #expect(schedules.timeshiftDeviceUUID == "5e3c1d7a-2b4f")
        #expect(
            schedules.prunePolicies == [
                PrunePolicy(instance: "gone", filesystems: nil), PrunePolicy(instance: "home", filesystems: ["/home"]),
            ])
        #expect(schedules.unknowns.count == 1)
    }

    @Test func aMaskedTimerIsNotActiveAndNothingIsReadWithoutTimers() throws {
        let root = try host(
            ["etc/snapper/configs/root": "SUBVOLUME=\"/\"\nTIMELINE_CREATE=\"yes\"\n"],
            links: [
                Self.wants + "snapper-timeline.timer": "/lib/systemd/system/snapper-timeline.timer",
                "run/systemd/system/snapper-timeline.timer": "/dev/null",
            ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let schedules = SnapshotScheduleFiles(host: HostRoot(root)).schedules()
        #expect(schedules.enabledTimers.isEmpty)
        #expect(schedules.snapperTimelines.isEmpty && schedules.btrbkVolumes == nil)
        #expect(schedules.timeshiftCronFiles.isEmpty && schedules.prunePolicies.isEmpty)
    }

    /// Malformed files: a snapper config without SUBVOLUME, a timeshift.json without the
    /// key or with a number, a btrbk.conf with a bare `volume`: nothing is guessed.
    @Test(arguments: [
        "{\n  \"backup_device_uuid\" : 12\n}\n", "{}", "not json", "{\n  \"backup_device_uuid\" : \"\"\n}\n",
    ])
    func malformedFilesGiveNothingRatherThanAGuess(_ timeshift: String) throws {
        let root = try host(
            [
                "etc/snapper/configs/broken": "TIMELINE_CREATE=\"yes\"\n",
                "etc/btrbk/btrbk.conf": "volume\n",
                "etc/cron.d/timeshift-hourly": "",
                "etc/timeshift/timeshift.json": timeshift,
            ],
            links: [
                Self.wants + "snapper-timeline.timer": "/lib/systemd/system/snapper-timeline.timer",
                Self.wants + "btrbk.timer": "/lib/systemd/system/btrbk.timer",
            ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let schedules = SnapshotScheduleFiles(host: HostRoot(root)).schedules()
        #expect(schedules.snapperTimelines.isEmpty)
        #expect(schedules.btrbkVolumes == [])
        #expect(schedules.timeshiftDeviceUUID == nil)
    }
}
