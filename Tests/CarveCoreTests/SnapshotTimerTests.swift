import CarveCore
import CarveTestSupport
import Testing

/// Which snapshot timers `check` names for a filesystem, with their pause and resume commands.
@Suite struct SnapshotTimerTests {
    static let root = MountEntry(
        mountID: 1, parentID: 0, number: DeviceNumber(major: 8, minor: 1), root: "/", mountpoint: "/",
        options: [], fsType: "btrfs", source: "/dev/sda1", superOptions: [])
    static let home = MountEntry(
        mountID: 2, parentID: 1, number: DeviceNumber(major: 8, minor: 2), root: "/", mountpoint: "/home",
        options: [], fsType: "btrfs", source: "/dev/sda2", superOptions: [])

    static let owners: [any OwnerSchedule] = [
        SnapperSchedule(timelines: [
            SnapperTimeline(name: "root", subvolume: "/"), SnapperTimeline(name: "home", subvolume: "/home"),
        ]),
        BtrbkSchedule(volumes: ["/home"]),
        TimeshiftSchedule(cronFiles: ["/etc/cron.d/timeshift-hourly"], deviceUUID: "root-uuid"),
        CarvePolicySchedule(policies: [
            .init(kind: "prune", instance: "home", filesystems: ["/home/.snapshots"]),
            .init(kind: "prune", instance: "lost", filesystems: nil),
            .init(kind: "thin", instance: "root", filesystems: ["/"]),
        ]),
    ]
    static let schedules = SnapshotSchedules(
        enabledTimers: [
            "btrbk.timer", "carve-prune@home.timer", "carve-prune@lost.timer", "carve-thin@root.timer",
            "snapper-timeline.timer",
        ],
        owners: owners, unknowns: ["not whether one was started by hand"])

    func timers(_ mountpoints: [String], uuid: String?) -> (timers: [SnapshotTimer], notes: [String]) {
        SnapshotTimerPlanner.timers(for: mountpoints, uuid: uuid, mounts: [Self.root, Self.home], in: Self.schedules)
    }

    @Test func eachTimerThatSnapshotsThisFilesystemIsNamedWithItsPauseAndResume() {
        let found = timers(["/home"], uuid: "home-uuid")
        #expect(
            found.timers.map(\.name) == [
                "snapper-timeline.timer", "btrbk.timer", "carve-prune@home.timer", "carve-prune@lost.timer",
            ])
        #expect(found.timers[0].detail == "takes snapper's hourly timeline snapshots of /home (config home)")
        #expect(found.timers[0].pause == "systemctl stop snapper-timeline.timer")
        #expect(found.timers[0].resume == "systemctl start snapper-timeline.timer")
        #expect(found.timers[3].detail.contains("could not read /etc/carve/prune/lost.conf"))
        #expect(found.notes == ["not whether one was started by hand"])
    }

    /// The root filesystem does not own what is mounted below it; timeshift goes by UUID.
    @Test func theRootFilesystemGetsOnlyItsOwnTimers() {
        let found = timers(["/"], uuid: "root-uuid")
        #expect(
            found.timers.map(\.name) == [
                "snapper-timeline.timer", "/etc/cron.d/timeshift-hourly", "carve-prune@lost.timer",
                "carve-thin@root.timer",
            ])
        #expect(found.timers[0].detail.hasSuffix("of / (config root)"))
        #expect(found.timers[3].detail == "deletes snapshots of this filesystem (it writes while the space is checked)")
        #expect(found.timers[1].pause == "mv /etc/cron.d/timeshift-hourly /etc/cron.d/.timeshift-hourly.paused")
        #expect(found.timers[1].resume == "mv /etc/cron.d/.timeshift-hourly.paused /etc/cron.d/timeshift-hourly")
    }

    @Test func anUnmountedFilesystemOfAnotherUUIDHasNone() {
        var schedules = Self.schedules
        schedules.owners.removeLast()
        let found = SnapshotTimerPlanner.timers(
            for: [], uuid: "other", mounts: [Self.root, Self.home], in: schedules)
        #expect(found.timers.isEmpty)
    }

    @Test func whatCarveCannotReadIsSaidRatherThanGuessed() {
        var schedules = Self.schedules
        schedules.owners[1] = BtrbkSchedule(volumes: nil)
        schedules.owners[2] = TimeshiftSchedule(cronFiles: ["/etc/cron.d/timeshift-hourly"], deviceUUID: nil)
        let found = SnapshotTimerPlanner.timers(for: ["/srv"], uuid: nil, mounts: [Self.root], in: schedules)
        #expect(found.timers.map(\.name).contains("btrbk.timer"))
        #expect(found.timers.first { $0.name == "btrbk.timer" }?.detail.contains("could not read btrbk.conf") == true)
        #expect(
            found.timers.first { $0.name.hasPrefix("/etc/cron.d") }?.detail.contains("could not read timeshift.json")
                == true)
    }
}

/// The filesystems a carve policy names, read with the grammar carve reads the policy with.
@Suite struct CarvePolicyScheduleTests {
    @Test(
        arguments: [
            ("--filesystem /home\n--keep-daily 7\n", ["/home"]),
            ("# c\n\n--filesystem=/srv\n  --filesystem '/mnt/my disk'\n", ["/srv", "/mnt/my disk"]),
            ("--keep-last 3\n", []),
            ("--filesystem '/unclosed\n", nil),
            ("not an option\n", nil),
            ("--filesystem /a --all\n", nil),
        ] as [(String, [String]?)])
    func theFilesystemLinesOfAPolicy(text: String, filesystems: [String]?) {
        #expect(CarvePolicySchedule.filesystems(inPolicy: text, file: "/etc/carve/prune/x.conf") == filesystems)
    }
}
