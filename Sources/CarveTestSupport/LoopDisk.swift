import Foundation

/// A sparse image file attached to a loop device, with its partitions, mounts and
/// everything else a test makes on it; `cleanup()` undoes all of it, in reverse,
/// and runs from `withLoopDisk` on every path, failure included.
public final class LoopDisk: @unchecked Sendable {
    public let directory: String
    public let image: String
    /// The loop device node, e.g. /dev/loop3.
    public let device: String
    private var mounts: [String] = []
    private var cleanedUp = false
    private var detached = false

    /// Makes an image of `size` (a `truncate -s` size such as 256M), optionally writes
    /// an sfdisk script to it, and attaches it (its partitions added by partx).
    public init(size: String, sfdisk script: String? = nil, in directory: String? = nil) throws {
        self.directory = try directory ?? Integration.makeScratchDirectory()
        image = self.directory + "/disk\(UUID().uuidString.prefix(8)).img"
        try Shell.check(["truncate", "-s", size, image])
        if let script { try Shell.check(["sfdisk", "--quiet", image], input: script) }
        device = try Shell.check(["losetup", "-f", "--show", image]).trimmingCharacters(in: .whitespacesAndNewlines)
        // A reused loop number can keep the previous image's partitions (added by partx,
        // which detaching does not drop, and left when a probe held one open at its
        // cleanup): drop them whatever this disk holds, then add ours. A raid1 member
        // once read as "a disk with a partition table" in a full run.
        Self.dropPartitions(of: device)
        if script != nil { try Shell.check(["partx", "-a", device]) }
    }

    /// `partx -d`, asked again for up to a second while the kernel still lists a
    /// partition of the device (one open elsewhere cannot be dropped yet).
    static func dropPartitions(of device: String) {
        let block = "/sys/block/" + device.dropFirst("/dev/".count)
        for _ in 0..<20 {
            _ = try? Shell.run(["partx", "-d", device])
            let names = (try? FileManager.default.contentsOfDirectory(atPath: block)) ?? []
            if !names.contains(where: { $0.hasPrefix(device.dropFirst("/dev/".count) + "p") }) { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// The node of partition `number`, e.g. /dev/loop3p2.
    public func partition(_ number: Int) -> String { "\(device)p\(number)" }

    /// Mounts `node` on a new directory inside this fixture and returns the mountpoint.
    @discardableResult
    public func mount(_ node: String, options: String? = nil, name: String? = nil) throws -> String {
        let mountpoint = directory + "/" + (name ?? "mnt\(mounts.count)")
        try FileManager.default.createDirectory(atPath: mountpoint, withIntermediateDirectories: true)
        try Shell.check(["mount"] + (options.map { ["-o", $0] } ?? []) + [node, mountpoint])
        mounts.append(mountpoint)
        return mountpoint
    }

    /// Unmounts a mount this fixture made (see `unmountWhenFree`).
    public func unmount(_ mountpoint: String) throws {
        try Self.unmountWhenFree(mountpoint)
        mounts.removeAll { $0 == mountpoint }
    }

    /// `umount`, asked again for up to two seconds while the kernel says the mount is
    /// busy: a probe or a flush still holding it for a moment made the first "busy" of a
    /// whole suite's run fail a test (once, never alone). Still busy after that, the error
    /// names the processes holding files under it.
    public static func unmountWhenFree(_ mountpoint: String) throws {
        var result = try Shell.run(["umount", mountpoint])
        for _ in 0..<20 where result.status != 0 && result.stderr.contains("busy") {
            Thread.sleep(forTimeInterval: 0.1)
            result = try Shell.run(["umount", mountpoint])
        }
        guard result.status != 0 else { return }
        let holders = holders(of: mountpoint)
        let named = holders.isEmpty ? "" : "held by \(holders.joined(separator: ", "))\n"
        throw Shell.Failure(
            command: ["umount", mountpoint],
            result: .init(status: result.status, stdout: result.stdout, stderr: result.stderr + named))
    }

    /// "PID (command)" of each process whose working directory or an open file is under `mountpoint`.
    static func holders(of mountpoint: String) -> [String] {
        let files = FileManager.default
        let pids = ((try? files.contentsOfDirectory(atPath: "/proc")) ?? []).filter { $0.allSatisfy(\.isNumber) }
        return pids.sorted { Int($0) ?? 0 < Int($1) ?? 0 }.compactMap { pid in
            let links =
                ["cwd", "root"] + ((try? files.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).map { "fd/" + $0 }
            let holds = links.contains { link in
                guard let target = try? files.destinationOfSymbolicLink(atPath: "/proc/\(pid)/\(link)") else {
                    return false
                }
                return target == mountpoint || target.hasPrefix(mountpoint + "/")
            }
            guard holds else { return nil }
            let command = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "?"
            return "\(pid) (\(command.trimmingCharacters(in: .whitespacesAndNewlines)))"
        }
    }

    /// Unmounts, drops partitions, detaches, removes the image: every step tried
    /// even when an earlier one fails.
    public func cleanup() {
        guard !cleanedUp else { return }
        cleanedUp = true
        // Lazily as a last resort, so that the loop device can still go.
        for mountpoint in mounts.reversed() where (try? Self.unmountWhenFree(mountpoint)) == nil {
            _ = try? Shell.run(["umount", "-l", mountpoint])
        }
        mounts.removeAll()
        if !detached {
            Self.dropPartitions(of: device)
            _ = try? Shell.run(["losetup", "-d", device])
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Detaches the loop device now, for tests of a device vanishing mid-run; cleanup
    /// then leaves the number alone, since another test may have attached it since.
    public func detach() throws {
        Self.dropPartitions(of: device)
        try Shell.check(["losetup", "-d", device])
        detached = true
        // While anyone has the device open (another test probing every device, say), the
        // kernel only marks it for autoclear: wait until the backing file is really gone.
        let backing = "/sys/block/\(device.dropFirst("/dev/".count))/loop/backing_file"
        for _ in 0..<200 where FileManager.default.fileExists(atPath: backing) { usleep(25_000) }
    }

    deinit { cleanup() }
}

/// Runs `body` with a fresh loop disk and cleans it up afterwards, however `body` ends.
public func withLoopDisk<T>(
    size: String, sfdisk script: String? = nil, _ body: (LoopDisk) throws -> T
) throws -> T {
    let disk = try LoopDisk(size: size, sfdisk: script)
    defer { disk.cleanup() }
    return try body(disk)
}
