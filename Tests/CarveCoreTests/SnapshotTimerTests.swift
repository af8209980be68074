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

    static let schedules = SnapshotSchedules(
        enabledTimers: ["btrbk.timer", "carve-prune@home.timer", "carve-prune@lost.timer", "snapper-timeline.timer"],
        snapperTimelines: [
            SnapperTimeline(name: "root", subvolume: "/"), SnapperTimeline(name: "home", subvolume: "/home"),
        ],
        btrbkVolumes: ["/home"], timeshiftCronFiles: ["/etc/cron.d/timeshift-hourly"],
        timeshiftDeviceUUID: "root-uuid",
        prunePolicies: [
            PrunePolicy(instance: "home", filesystems: ["/home/.snapshots"]),
            PrunePolicy(instance: "lost", filesystems: nil),
        ],
        unknowns: ["not whether one was started by hand"])

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
            ])
        #expect(found.timers[0].detail.hasSuffix("of / (config root)"))
        #expect(found.timers[1].pause == "mv /etc/cron.d/timeshift-hourly /etc/cron.d/.timeshift-hourly.paused")
        #expect(found.timers[1].resume == "mv /etc/cron.d/.timeshift-hourly.paused /etc/cron.d/timeshift-hourly")
    }

    @Test func anUnmountedFilesystemOfAnotherUUIDHasNone() {
        var schedules = Self.schedules
        schedules.prunePolicies = []
        let found = SnapshotTimerPlanner.timers(
            for: [], uuid: "other", mounts: [Self.root, Self.home], in: schedules)
        #expect(found.timers.isEmpty)
    }

    @Test func whatCarveCannotReadIsSaidRatherThanGuessed() {
        var schedules = Self.schedules
        schedules.btrbkVolumes = nil
        schedules.timeshiftDeviceUUID = nil
        let found = SnapshotTimerPlanner.timers(for: ["/srv"], uuid: nil, mounts: [Self.root], in: schedules)
        #expect(found.timers.map(\.name).contains("btrbk.timer"))
        #expect(found.timers.first { $0.name == "btrbk.timer" }?.detail.contains("could not read btrbk.conf") == true)
        #expect(
            found.timers.first { $0.name.hasPrefix("/etc/cron.d") }?.detail.contains("could not read timeshift.json")
                == true)
    }
}
