import CarveCore
import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// The steps of `carve check --json`, run verbatim (`bash -c` each, as root) on real
/// loop disks, then judged by the reference tools: e2fsck / btrfs scrub, the data's
/// checksum, the filesystem no larger than its partition, the table as reported.
extension CheckValidationTests {
    @Test(arguments: ["gpt", "dos"])
    func unmountedExt4ShrinksForANewPartitionByRunningTheSteps(_ label: String) throws {
        try StepRunner.withFilledDisk(label: label, partition: ",,L", mkfs: ["mkfs.ext4", "-q", "-F"]) {
            disk, part, mountpoint, checksum in
            try disk.unmount(mountpoint)

            let report = try StepRunner.check([disk.device, "--new-partition", "600M"])
            let steps = try StepRunner.steps(report)
            #expect(steps.first?.hasPrefix("sfdisk --dump") == true && !steps.contains { $0.contains("mkfs") })
            for step in steps { try StepRunner.run(step) }
            Udevd.settle([disk.partition(2)])

            let verify = try Shell.run(["e2fsck", "-f", "-n", part])
            #expect(verify.status == 0, "e2fsck after the steps: \(verify.stdout)")
            let header = try Shell.check(["dumpe2fs", "-h", part])
            let fsBytes =
                try ResizeToolOutput.dumpe2fsField("Block count", in: header)
                * ResizeToolOutput.dumpe2fsField("Block size", in: header)
            try StepRunner.expectTableAsReported(disk, report, filesystemBytes: fsBytes)
            #expect(FileManager.default.fileExists(atPath: disk.partition(2)), "the kernel has no new partition")
            #expect(try StepRunner.checksum(try disk.mount(part)) == checksum)
        }
    }

    @Test(arguments: ["gpt", "dos"])
    func mountedBtrfsShrinksInPlaceByRunningTheSteps(_ label: String) throws {
        try StepRunner.withFilledDisk(
            label: label, partition: "size=1000MiB, type=L", mkfs: ["mkfs.btrfs", "-q", "-f"]
        ) {
            disk, part, mountpoint, checksum in

            let report = try StepRunner.check([part, "--shrink-to", "700M"])
            let steps = try StepRunner.steps(report)
            if label == "gpt" { try expectTimersNamed(part, mountpoint) }
            #expect(steps.contains { $0.hasPrefix("btrfs filesystem resize 1:734003200 ") })
            for step in steps { try StepRunner.run(step) }

            let scrub = try Shell.run(["btrfs", "scrub", "start", "-B", mountpoint])
            #expect(scrub.status == 0 && !scrub.stdout.contains("Error summary:    csum"), "\(scrub.stdout)")
            #expect(scrub.stdout.contains("no errors found"), "\(scrub.stdout)")
            let show = try Shell.check(["btrfs", "filesystem", "show", "--raw", mountpoint])
            let devidLine = try #require(show.split(separator: "\n").first { $0.contains("devid") })
            let fields = devidLine.split(separator: " ")
            let fsBytes = try #require(fields.firstIndex(of: "size").flatMap { UInt64(fields[$0 + 1]) })
            try StepRunner.expectTableAsReported(disk, report, filesystemBytes: fsBytes)
            #expect(try StepRunner.checksum(mountpoint) == checksum)
            try disk.unmount(mountpoint)
            let check = try Shell.run(["btrfs", "check", "--readonly", part])
            #expect(check.status == 0, "btrfs check after the steps: \(check.stderr)")
        }
    }

    /// A host whose snapper timeline snapshots this very mountpoint: the check names the
    /// timer with its pause command; a timer masked in /run is not named.
    func expectTimersNamed(_ part: String, _ mountpoint: String) throws {
        let wants = "etc/systemd/system/timers.target.wants/"
        let root = try Integration.makeTree(
            [
                "etc/snapper/configs/data": "SUBVOLUME=\"\(mountpoint)\"\nTIMELINE_CREATE=\"yes\"\n",
                "etc/btrbk/btrbk.conf": "volume \(mountpoint)\n",
            ],
            links: [
                wants + "snapper-timeline.timer": "/lib/systemd/system/snapper-timeline.timer",
                wants + "btrbk.timer": "/lib/systemd/system/btrbk.timer",
                "run/systemd/system/btrbk.timer": "/dev/null",
            ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let report = try CheckHarness.check(
            part, .shrinkTo(700 * Self.mebibyte), schedules: SnapshotScheduleFiles(host: HostRoot(root)))
        #expect(report.timers.map(\.name) == ["snapper-timeline.timer"])
        #expect(report.timers.first?.pause == "systemctl stop snapper-timeline.timer")
        #expect(report.notes.contains { $0.contains("systemctl list-timers") })
    }

    /// The partition is moved after the check: the first step fails, and neither the
    /// table nor the filesystem is touched; the partition step on its own refuses too.
    @Test func aPartitionMovedAfterTheCheckMakesTheStepsFailBeforeAnyWrite() throws {
        try withLoopDisk(size: "1200M", sfdisk: "label: gpt\nsize=1000MiB, type=L\n") { disk in
            let part = disk.partition(1)
            try Shell.check(["mkfs.ext4", "-q", "-F", part])
            let report = try StepRunner.check([disk.device, "--new-partition", "600M"])
            let steps = try StepRunner.steps(report)

            try Shell.check(["sfdisk", "--quiet", "--no-reread", "-N", "1", disk.device], input: "start=4096\n")
            // A running udevd probes the disk once sfdisk closes it: partx waits for that.
            Udevd.settle()
            try Shell.check(["partx", "-u", disk.device])
            let table = try Shell.check(["sfdisk", "--dump", disk.device])
            let content = try Shell.check(["sh", "-c", "head -c 64M \(part) | sha256sum"])

            let first = try Shell.run(["bash", "-c", try #require(steps.first)])
            #expect(first.status != 0, "the first step ran on a moved partition")
            let partition = try #require(steps.first { $0.contains("sfdisk --no-reread --no-tell-kernel -N") })
            #expect(try Shell.run(["bash", "-c", partition]).status != 0, "the partition step wrote a moved table")
            #expect(try Shell.check(["sfdisk", "--dump", disk.device]) == table)
            #expect(try Shell.check(["sh", "-c", "head -c 64M \(part) | sha256sum"]) == content)
        }
    }
}

/// Runs carve as a script does and the steps it prints as the user would.
enum StepRunner {
    /// A 1200 MiB loop disk with one partition, its filesystem made by `mkfs`, mounted and
    /// holding 150 MiB of random files, whose checksum `body` gets.
    static func withFilledDisk(
        label: String, partition: String, mkfs: [String],
        _ body: (LoopDisk, _ part: String, _ mountpoint: String, _ checksum: String) throws -> Void
    ) throws {
        try withLoopDisk(size: "1200M", sfdisk: "label: \(label)\n\(partition)\n") { disk in
            let part = disk.partition(1)
            try Shell.check(mkfs + [part])
            // A running udevd learns of a new filesystem on a partition only from a change
            // event: without one its record (which carve reads first, as lsblk) says none.
            Udevd.settle([part])
            let mountpoint = try disk.mount(part)
            try CheckHarness.writeFiles(mountpoint, count: 15, mebibytes: 10)
            try body(disk, part, mountpoint, try checksum(mountpoint))
        }
    }

    static func check(_ arguments: [String]) throws -> [String: Any] {
        Udevd.settle()
        let result = try Shell.run([try CheckHarness.carveExecutable(), "check"] + arguments + ["--json"])
        guard result.status == 0 else { throw RuntimeError("carve check exited \(result.status): \(result.stdout)") }
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
    }

    static func steps(_ report: [String: Any]) throws -> [String] {
        let steps = (report["steps"] as? [[String: Any]] ?? []).compactMap { $0["command"] as? String }
        guard !steps.isEmpty else { throw RuntimeError("no steps in a report that fits: \(report)") }
        return steps
    }

    /// One step, verbatim, as root; a failing step fails the test with its output.
    static func run(_ step: String) throws {
        let result = try Shell.run(["bash", "-c", step])
        guard result.status == 0 else {
            throw RuntimeError("step `\(step)` exited \(result.status): \(result.stderr)\(result.stdout)")
        }
    }

    /// Every file's sha256 under `directory`, in name order.
    static func checksum(_ directory: String) throws -> String {
        try Shell.check(["sh", "-c", "cd '\(directory)' && find . -type f | sort | xargs sha256sum"])
    }

    /// The table (sfdisk -J) holds the report's shrunk and new partitions, the kernel
    /// agrees, and the filesystem is no larger than its partition.
    static func expectTableAsReported(_ disk: LoopDisk, _ report: [String: Any], filesystemBytes: UInt64) throws {
        let layout = try CheckHarness.sfdiskPartitions(disk.device)
        let resized = try #require(report["resized_partition"] as? [String: Any])
        let start = (resized["start"] as? NSNumber)?.uint64Value, end = (resized["end"] as? NSNumber)?.uint64Value
        #expect(layout.first?.start == start && layout.first.map { $0.start + $0.size - 1 } == end)
        let sectors = try #require(end.flatMap { end in start.map { end - $0 + 1 } })
        #expect(filesystemBytes <= sectors * 512, "the filesystem is larger than its partition")
        let kernel = try Shell.check(["blockdev", "--getsize64", disk.partition(1)])
        #expect(kernel.trimmingCharacters(in: .whitespacesAndNewlines) == String(sectors * 512))
        if let new = report["new_partition"] as? [String: Any] {
            let newStart = (new["start"] as? NSNumber)?.uint64Value, newEnd = (new["end"] as? NSNumber)?.uint64Value
            #expect(layout.count == 2 && layout.last?.start == newStart)
            #expect(layout.last.map { $0.start + $0.size - 1 } == newEnd)
        } else {
            #expect(layout.count == 1)
        }
    }
}
