import CarveCLI
import CarveCore
import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// What the validation harness uses to run `carve check` on real loop devices and
/// then do what it claimed fits.
enum CheckHarness {
    /// `carve check` with the platform's real implementations, as the command runs it.
    static func check(
        _ path: String, _ operation: CheckOperation,
        snapshots: any SnapshotListing = SnapshotBackendRegistry.classifying(BtrfsSnapshotBackend()),
        schedules: (any SnapshotScheduleReader)? = nil
    ) throws -> CheckReport {
        Udevd.settle([path])
        let environment = CheckEnvironment(
            devices: LinuxDeviceSource(), tables: FdiskPartitionTableReader(), sizer: LinuxFilesystemSizer(),
            mounts: ProcMountTable(), snapshots: snapshots, schedules: schedules
        )
        return try Check.run(device: path, operation: operation, in: environment)
    }

    /// Runs carve in-process on the real machine, as a script would, capturing its output.
    static func carve(_ arguments: [String]) -> (status: Int32, stdout: String, stderr: String) {
        Udevd.settle()
        let sink = CapturingSink()
        var services = Services.system()
        services.output = sink
        let status = Services.$current.withValue(services) { CarveMain.run(arguments) }
        return (status, sink.text.stdout, sink.text.stderr)
    }

    /// The carve executable built next to this test bundle.
    static func carveExecutable() throws -> String {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [directory, directory.deletingLastPathComponent()].map {
            $0.appendingPathComponent("carve").path
        }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw RuntimeError("no carve executable next to \(CommandLine.arguments[0])")
        }
        return found
    }

    /// Writes `count` files of `mebibytes` random MiB each under `directory`, named `prefix0`...
    static func writeFiles(_ directory: String, count: Int, mebibytes: Int, prefix: String = "f") throws {
        try Shell.check([
            "sh", "-c",
            """
            i=0; while [ $i -lt \(count) ]; do head -c \(mebibytes)M /dev/urandom > '\(directory)/\(prefix)'$i; i=$((i+1)); done; sync
            """,
        ])
    }

    /// Shrinks a mounted btrfs; true when the kernel did it.
    static func btrfsResize(_ mountpoint: String, to bytes: UInt64) throws -> Bool {
        let result = try Shell.run(["btrfs", "filesystem", "resize", String(bytes), mountpoint])
        // Kept for the calibration record: why the kernel refused, when it did.
        if result.status != 0 {
            record(
                "btrfs resize to \(bytes >> 20) MiB refused: \(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))"
            )
        }
        return result.status == 0
    }

    static func btrfsGrowBack(_ mountpoint: String) throws {
        try Shell.check(["btrfs", "filesystem", "resize", "max", mountpoint])
    }

    /// The smallest size, stepping down from `start` by `step`, at which a shrink of
    /// the mounted btrfs succeeds; the filesystem is grown back after every try.
    static func btrfsFloor(_ mountpoint: String, from start: UInt64, step: UInt64 = 8 << 20) throws -> UInt64? {
        var size = start, floor: UInt64?
        while size > step, try btrfsResize(mountpoint, to: size) {
            floor = size
            try btrfsGrowBack(mountpoint)
            size -= step
        }
        return floor
    }

    /// Sets partition `number` of the image to `sectors` with sfdisk, then tells the kernel.
    static func resizePartition(_ disk: LoopDisk, number: Int, sectors: UInt64) throws {
        try Shell.check(
            ["sfdisk", "--quiet", "--no-reread", "--no-tell-kernel", "-N", String(number), disk.image],
            input: ",\(sectors)\n")
        try dropCachedTable(disk)
        try Shell.check(["partx", "-u", "-n", String(number), disk.device])
        let kernelSectors = try Shell.check(["blockdev", "--getsz", disk.partition(number)]).trimmingCharacters(
            in: .whitespacesAndNewlines)
        guard kernelSectors == String(sectors) else {
            throw RuntimeError("\(disk.partition(number)): the kernel sees \(kernelSectors) sectors, not \(sectors)")
        }
    }

    /// Adds partition `number` at exactly `range` with sfdisk, then tells the kernel
    /// about that one only (the others may be mounted).
    static func appendPartition(_ disk: LoopDisk, number: Int, _ range: SectorRange) throws {
        try Shell.check(
            ["sfdisk", "--quiet", "--no-reread", "--no-tell-kernel", "--append", disk.image],
            input: "start=\(range.start), size=\(range.sectors), type=L\n"
        )
        try dropCachedTable(disk)
        try Shell.check(["partx", "-a", "-n", String(number), disk.device])
        Udevd.settle()
        for _ in 0..<50 where !FileManager.default.fileExists(atPath: disk.partition(number)) { usleep(100_000) }
    }

    /// sfdisk wrote the image file; the loop device's buffer cache still holds the old
    /// table, which partx would read.
    static func dropCachedTable(_ disk: LoopDisk) throws {
        try Shell.check(["blockdev", "--flushbufs", disk.device])
    }

    /// Start and size in sectors of every partition of the image, from `sfdisk -J`.
    static func sfdiskPartitions(_ image: String) throws -> [(start: UInt64, size: UInt64)] {
        let json = try Shell.check(["sfdisk", "-J", image])
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let table = object?["partitiontable"] as? [String: Any]
        return (table?["partitions"] as? [[String: Any]] ?? []).map {
            (($0["start"] as? NSNumber)?.uint64Value ?? 0, ($0["size"] as? NSNumber)?.uint64Value ?? 0)
        }
    }

    /// Appends a line to the calibration record that Scripts/test prints and the report quotes.
    static func record(_ line: String) {
        print("check-calibration: \(line)")
        let path = "/tmp/carve-check-calibration.txt"
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
        }
        if let handle = FileHandle(forWritingAtPath: path) {
            handle.seekToEndOfFile()
            handle.write(Data((line + "\n").utf8))
            try? handle.close()
        }
    }
}

/// Snapshots as `btrfs subvolume list -s` and `btrfs qgroup show --raw` report them: the
/// reference tools' view, so the planner's snapshot advice is tested on real sizes.
struct ReferenceSnapshotBackend: SnapshotListing {
    let mountpoint: String
    let device: String

    func mountedFilesystems() throws -> [Filesystem] { [try filesystem(containing: mountpoint)] }

    func locate(_ path: String, among filesystems: [Filesystem]) -> VolumeLocation? { nil }

    func filesystem(containing path: String) throws -> Filesystem {
        Filesystem(
            uuid: "", devices: [device],
            mounts: [FilesystemMount(mountpoint: mountpoint, subvolumePath: "/", subvolumeID: 5)])
    }

    func subvolumes(of filesystem: Filesystem, sizes: SizeMode) throws -> VolumeListing {
        var exclusive: [UInt64: UInt64] = [:]
        for line in try Shell.check(["btrfs", "qgroup", "show", "--raw", mountpoint]).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 3, fields[0].hasPrefix("0/"), let id = UInt64(fields[0].dropFirst(2)),
                let excl = UInt64(fields[2])
            else { continue }
            exclusive[id] = excl
        }
        let list = try Shell.check(["btrfs", "subvolume", "list", "-s", mountpoint])
        let snapshots = list.split(separator: "\n").compactMap { line -> Volume? in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard let idIndex = fields.firstIndex(of: "ID"), let id = UInt64(fields[idIndex + 1]),
                let pathIndex = fields.firstIndex(of: "path")
            else { return nil }
            let path = fields[(pathIndex + 1)...].joined(separator: " ")
            return Volume(
                id: id, path: path, mountedPath: mountpoint + "/" + path, uuid: "snapshot-\(id)", parentUUID: "source",
                created: Date(timeIntervalSince1970: TimeInterval(id)), exclusive: exclusive[id]
            )
        }
        return VolumeListing(filesystem: filesystem, subvolumes: snapshots, sizes: exclusive.isEmpty ? .none : .quota)
    }
}

/// An output sink that keeps what carve writes.
final class CapturingSink: OutputSink {
    let text = CapturedText()
    func write(_ text: String) { self.text.appendOut(text) }
    func writeError(_ text: String) { self.text.appendErr(text) }
}
