import CarveCore
import CarveTestSupport
import Testing
@testable import CarveCLI

/// A 10 GiB GPT disk: sda1 4 GiB xfs, sda2 2 GiB ext4 (unmounted), 4 GiB free.
private let devices = FakeDeviceSource()
    .disk(
        "sda", size: 10 * .gib,
        partitions: [FakePartition(size: 4 * .gib, .xfs()), FakePartition(size: 2 * .gib, .ext4())]
    )
    .loop("loop0", size: .gib)
    .path("/tmp/disk.img", is: .regularFile)
private let tables = FakePartitionTableReader([
    "/dev/sda": FakePartitionTableReader.gpt(
        totalSectors: 20_971_520, partitions: [(2048, 8_388_608), (8_390_656, 4_194_304)]
    )
])
private let sizer = FakeFilesystemSizer([
    "/dev/sda1": FilesystemFigures(fsType: "xfs", source: "nothing"),
    "/dev/sda2": FilesystemFigures(fsType: "ext4", minimum: 700 * .mib, source: "resize2fs -P"),
])

private func carve(_ arguments: [String], schedules: SnapshotSchedules? = nil) -> RunResult {
    runCarve(["check"] + arguments) { captured in
        Services(
            devices: devices, snapshots: FakeSnapshotBackend(), output: captured, isRoot: true,
            partitionTables: tables, filesystemSizer: sizer, mounts: FakeMountTable(),
            snapshotSchedules: schedules.map(FixedSnapshotSchedules.init)
        )
    }
}

@Suite struct CheckCommandTests {
    @Test func aShrinkThatFitsExitsZeroWithATextReport() {
        let result = carve(["/dev/sda2", "--shrink-to", "1G"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(
            result.stdout == """
                /dev/sda2: ext4, shrink to 1G: fits
                  current size                2G (2147483648 bytes)
                  target size                 1G (1073741824 bytes)
                  minimum size                700M (734003200 bytes), from resize2fs -P
                  partition 2 after shrink    sectors 8390656-10487807, 1G (1073741824 bytes)
                Steps:
                  sfdisk --dump /dev/sda | grep -q '^/dev/sda2 : start= *8390656, size= *4194304,'
                      writes nothing: fails unless partition 2 still starts at sector 8390656 with 4194304 sectors, as carve checked; if it fails, run carve check again
                  e2fsck -f -y /dev/sda2
                      resize2fs shrinks only a filesystem checked since its last mount; exit status 1 means e2fsck repaired something: stop and run carve check again
                  resize2fs /dev/sda2 1048576K
                      shrinks the filesystem to 1G (1073741824 bytes, a whole number of 4096-byte blocks), before its partition; K is KiB to resize2fs, so the size is exact
                  sfdisk --dump /dev/sda | grep -q '^/dev/sda2 : start= *8390656, size= *4194304,' && echo 'start=8390656, size=2097152' | sfdisk --no-reread --no-tell-kernel -N 2 /dev/sda
                      shrinks partition 2 to sectors 8390656-10487807 (1G, 1073741824 bytes), only if the table is still as checked
                  partx -u /dev/sda
                      tells the kernel the new table, partition by partition (works while other partitions are mounted)

                """)
    }

    /// timeshift writes to sda2 (its UUID): the check names the cron job and how to pause it.
    @Test func snapshotTimersOfTheFilesystemAreNamedWithTheirPauseAndResume() {
        let schedules = SnapshotSchedules(
            enabledTimers: ["snapper-timeline.timer"],
            owners: [
                SnapperSchedule(timelines: [SnapperTimeline(name: "root", subvolume: "/")]),
                TimeshiftSchedule(
                    cronFiles: ["/etc/cron.d/timeshift-hourly"], deviceUUID: "0b6a8f56-5d2c-4f43-9e6b-6d3a1c2b4e01"),
            ], unknowns: ["carve could not tell X"])
        let result = carve(["/dev/sda2", "--shrink-to", "1G"], schedules: schedules)
        #expect(result.status == 0)
        #expect(
            result.stdout.contains(
                """
                  partition 2 after shrink    sectors 8390656-10487807, 1G (1073741824 bytes)
                Snapshot timers (pause them until the repartition is done):
                  /etc/cron.d/timeshift-hourly: timeshift writes its snapshots to this filesystem
                      pause:  mv /etc/cron.d/timeshift-hourly /etc/cron.d/.timeshift-hourly.paused
                      resume: mv /etc/cron.d/.timeshift-hourly.paused /etc/cron.d/timeshift-hourly
                Steps:

                """), "\(result.stdout)")
        #expect(result.stdout.hasSuffix("Notes:\n  carve could not tell X\n"))
        let json = carve(["/dev/sda2", "--shrink-to", "1G", "--json"], schedules: schedules)
        #expect(
            json.stdout.contains(
                """
                   "snapshot_timers": [
                      {
                         "name": "/etc/cron.d/timeshift-hourly",
                         "detail": "timeshift writes its snapshots to this filesystem",
                         "pause": "mv /etc/cron.d/timeshift-hourly /etc/cron.d/.timeshift-hourly.paused",
                         "resume": "mv /etc/cron.d/.timeshift-hourly.paused /etc/cron.d/timeshift-hourly"
                      }
                   ],
                """))
    }

    @Test func aShrinkThatDoesNotFitExitsThreeWithEveryBlocker() {
        let result = carve(["/dev/sda1", "--shrink-by", "100M"])
        #expect(result.status == 3)
        #expect(result.stdout.contains("/dev/sda1: xfs, shrink by 100M: does not fit"))
        #expect(result.stdout.contains("Blockers:\n  cannot-shrink (100M): xfs on /dev/sda1: xfs cannot be shrunk"))
    }

    @Test func jsonHasTheDocumentedKeys() {
        let result = carve(["/dev/sda", "--new-partition", "1GiB", "--json"])
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                {
                   "carve_version": "\(CarveCommand.version)",
                   "device": "/dev/sda",
                   "filesystem": null,
                   "operation": "new-partition",
                   "current_size": 4293901824,
                   "target_size": 1073741824,
                   "minimum_size": null,
                   "minimum_size_without_snapshots": null,
                   "verdict": "fits",
                   "blockers": [],
                   "remedies": [],
                   "steps": [
                      {
                         "command": "echo 'start=12584960, size=2097152, type=L' | sfdisk --no-reread --no-tell-kernel --append /dev/sda",
                         "explanation": "creates the new partition at sectors 12584960-14682111 (1G, aligned to 1 MiB, type Linux filesystem); sfdisk refuses if those sectors are in use. No filesystem is made on it: that is your choice"
                      },
                      {
                         "command": "partx -u /dev/sda",
                         "explanation": "tells the kernel the new table, partition by partition (works while other partitions are mounted)"
                      }
                   ],
                   "snapshot_timers": [],
                   "new_partition": {
                      "start": 12584960,
                      "end": 14682111,
                      "size": 1073741824,
                      "sector_size": 512
                   },
                   "resized_partition": null,
                   "notes": [
                      "the free gap at sectors 12584960-20971486 (4G) holds it"
                   ]
                }

                """)
    }

    @Test func jsonOfAFailedCheckListsBlockersAndRemedies() {
        let result = carve(["/dev/sda2", "--shrink-to", "600M", "--json"])
        #expect(result.status == 3)
        #expect(result.stdout.contains("\"verdict\": \"does not fit\""))
        #expect(result.stdout.contains("\"kind\": \"below-minimum\",\n         \"bytes\": 104857600"))
    }

    @Test(arguments: [
        (["/dev/sda2"], "exactly one of --shrink-to, --shrink-by, --new-partition and --remove"),
        (["/dev/sda2", "--shrink-to", "1G", "--shrink-by", "1G"], "exactly one of"),
        (["/dev/sda2", "--shrink-to", "0"], "larger than zero"),
        (["/dev/sda2", "--shrink-to=-1G"], "cannot be negative"),
        (["/dev/sda2", "--shrink-to", "lots"], "invalid size 'lots'"),
        (["/dev/sda2", "--shrink-to", "3G"], "cannot shrink to 3G: /dev/sda2 is 2G"),
        (["/dev/sda", "--shrink-to", "3G"], "is a disk with a partition table"),
        (["/dev/sda2", "--new-partition", "1G"], "is a partition"),
        (["/dev/loop0", "--new-partition", "1G"], "has no partition table"),
        (["/dev/nope", "--shrink-to", "1G"], "/dev/nope: no such file or directory"),
        (["/tmp/disk.img", "--shrink-to", "1G"], "/tmp/disk.img is not a block device"),
    ])
    func badInputIsOneLineAndExit64(_ arguments: [String], _ message: String) {
        let result = carve(arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("carve: "))
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }
}
