import CarveCore
import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// The snapshot schedules read from a fixture host tree: unit-file state in /etc and
/// /run, snapper's configs, btrbk.conf, timeshift's cron files and json, carve's policies.
@Suite struct SnapshotScheduleFilesTests {
    static let wants = "etc/systemd/system/timers.target.wants/"

    func owner<Schedule: OwnerSchedule>(_ type: Schedule.Type, in schedules: SnapshotSchedules) -> Schedule? {
        schedules.owners.lazy.compactMap { $0 as? Schedule }.first
    }

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
                "etc/carve/thin/root.conf": "--filesystem='/'\n--until-available 20%\n",
            ],
            links: [
                Self.wants + "snapper-timeline.timer": "/lib/systemd/system/snapper-timeline.timer",
                Self.wants + "btrbk.timer": "/lib/systemd/system/btrbk.timer",
                Self.wants + "carve-prune@home.timer": "/lib/systemd/system/carve-prune@.timer",
                Self.wants + "carve-thin@root.timer": "/lib/systemd/system/carve-thin@.timer",
                "run/systemd/system/timers.target.wants/carve-prune@gone.timer":
                    "/lib/systemd/system/carve-prune@.timer",
                Self.wants + "apt-daily.timer": "/lib/systemd/system/apt-daily.timer",
            ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let schedules = SnapshotScheduleFiles(host: HostRoot(root)).schedules()
        #expect(
            schedules.enabledTimers == [
                "btrbk.timer", "carve-prune@gone.timer", "carve-prune@home.timer", "carve-thin@root.timer",
                "snapper-timeline.timer",
            ])
        #expect(
            owner(SnapperSchedule.self, in: schedules)?.timelines == [SnapperTimeline(name: "root", subvolume: "/")])
        #expect(owner(BtrbkSchedule.self, in: schedules)?.volumes == ["/mnt/pool"])
        let timeshift = owner(TimeshiftSchedule.self, in: schedules)
        #expect(timeshift?.cronFiles == ["/etc/cron.d/timeshift-boot", "/etc/cron.d/timeshift-hourly"])
        #expect(timeshift?.deviceUUID == "5e3c1d7a-2b4f")
        #expect(
            owner(CarvePolicySchedule.self, in: schedules)?.policies == [
                .init(kind: "prune", instance: "gone", filesystems: nil),
                .init(kind: "prune", instance: "home", filesystems: ["/home"]),
                .init(kind: "thin", instance: "root", filesystems: ["/"]),
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
        #expect(schedules.owners.isEmpty)
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
        #expect(owner(SnapperSchedule.self, in: schedules)?.timelines == [])
        #expect(owner(BtrbkSchedule.self, in: schedules)?.volumes == [])
        #expect(owner(TimeshiftSchedule.self, in: schedules)?.deviceUUID == nil)
    }
}
