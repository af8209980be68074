import CarveTestSupport
import Foundation
import Testing

/// A loop-backed btrfs for the deletion tests: a source subvolume `data`, snapshots
/// under `snaps/`, the built carve run against it with its own lock file, and
/// btrfs-progs to check what is left.
final class DeletionDisk {
    let disk: LoopDisk
    let mountpoint: String
    let lockFile: String

    init(size: String = "1G", quotas: Bool = false) throws {
        disk = try LoopDisk(size: size)
        do {
            try Shell.check(["mkfs.btrfs", "-q", "-f", disk.device])
            mountpoint = try disk.mount(disk.device, name: "mnt")
            lockFile = disk.directory + "/carve.lock"
            try Shell.check(["btrfs", "subvolume", "create", mountpoint + "/data"])
            try FileManager.default.createDirectory(atPath: mountpoint + "/snaps", withIntermediateDirectories: true)
            if quotas { try Shell.check(["btrfs", "quota", "enable", mountpoint]) }
        } catch {
            disk.cleanup()
            throw error
        }
    }

    func cleanup() { disk.cleanup() }

    /// Writes `mebibytes` of fresh random data into the source, then snapshots it read-only.
    /// With `exclusive`, the file is removed from the source afterwards, so the
    /// snapshot alone holds it.
    func snapshot(_ name: String, mebibytes: Int = 0, exclusive: Bool = false, of source: String = "data") throws {
        let file = "\(mountpoint)/\(source)/\(name).bin"
        if mebibytes > 0 {
            try Shell.check(["dd", "if=/dev/urandom", "of=\(file)", "bs=1M", "count=\(mebibytes)", "status=none"])
        }
        try Shell.check([
            "btrfs", "subvolume", "snapshot", "-r", "\(mountpoint)/\(source)", "\(mountpoint)/snaps/\(name)",
        ])
        if exclusive && mebibytes > 0 { try FileManager.default.removeItem(atPath: file) }
    }

    /// How deleting runs unattended: under exactly the capability set of the shipped
    /// `carve-prune@` unit, so every deletion test checks its rule as the timer runs it
    /// (root at a shell has every capability the unit has, and more).
    static let unit = Result { try UnitSandbox(unit: "carve-prune@.service") }

    /// The built carve with this disk's lock file, as `carve-prune@` runs it; `asRoot`:
    /// with every capability, as root at a shell.
    @discardableResult
    func carve(_ arguments: [String], asRoot: Bool = false) throws -> Shell.Result {
        let prefix = asRoot ? [] : try Self.unit.get().prefix
        return try Shell.run(prefix + [CarveBinary.path] + arguments, environment: ["CARVE_LOCK_FILE": lockFile])
    }

    /// A carve process started in the background, for lock and kill tests.
    func startCarve(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = try Self.unit.get().prefix + [CarveBinary.path] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["CARVE_LOCK_FILE": lockFile]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Starts carve and returns once its audit trail on stderr shows more than
    /// `deletions` deleted snapshots (or stderr closed): where the tests interrupt a
    /// run in its middle. `seen` is the stderr read so far.
    ///
    /// With `pacing` (microseconds), strace holds carve that long before each call a
    /// deletion is made of (the marker's write, the subvolume's ioctl, each unlink,
    /// rename and rmdir, the audit trail's write), so a run of a few dozen snapshots
    /// cannot finish between the message the test reads and the signal it sends,
    /// however loaded the machine, and a signal after a random wait lands before any
    /// step alike. `carve` is then the traced process (strace's child), the one to signal.
    func startCarve(
        _ arguments: [String], afterDeletions deletions: Int, pacing: Int? = nil
    ) throws -> (run: Process, stdout: Pipe, stderr: Pipe, seen: String, carve: pid_t) {
        let run = Process()
        run.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let paced = pacing.map { Self.strace("write,ioctl,unlinkat,rename,rmdir", inject: "delay_enter=\($0)") }
        run.arguments = try (paced ?? []) + Self.unit.get().prefix + [CarveBinary.path] + arguments
        run.environment = ProcessInfo.processInfo.environment.merging(["CARVE_LOCK_FILE": lockFile]) { $1 }
        let stdout = Pipe(), stderr = Pipe()
        run.standardOutput = stdout
        run.standardError = stderr
        try run.run()
        var seen = ""
        while seen.components(separatedBy: "carve: deleted snapshot").count <= deletions {
            let chunk = stderr.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        let pid = run.processIdentifier
        guard pacing != nil else { return (run, stdout, stderr, seen, pid) }
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        let carve = try #require(children.split(separator: " ").first.flatMap { pid_t($0) }, "strace has no child")
        return (run, stdout, stderr, seen, carve)
    }

    /// strace's options, before the program it runs: `inject` (after `inject=CALLS:`)
    /// acts on each of `calls`, and nothing is traced to the output.
    static func strace(_ calls: String, inject: String) -> [String] {
        ["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=" + calls, "-e", "inject=\(calls):\(inject)"]
    }

    /// The real binary, as root, SIGKILLed by strace on entering its `when`-th `call`:
    /// a kill placed exactly, where a signal sent from outside could land anywhere.
    func carveKilled(entering call: String, _ when: Int, _ arguments: [String]) throws -> Shell.Result {
        try Shell.run(
            Self.strace(call, inject: "signal=KILL:when=\(when)") + [CarveBinary.path] + arguments,
            environment: ["CARVE_LOCK_FILE": lockFile])
    }

    /// Volume paths as `btrfs subvolume list` shows them (the reference), sorted.
    func subvolumes() throws -> [String] {
        try Shell.check(["btrfs", "subvolume", "list", mountpoint]).split(separator: "\n").compactMap { line in
            line.range(of: " path ").map { String(line[$0.upperBound...]) }
        }.sorted()
    }

    /// Waits up to `seconds` for `condition`.
    func waitFor(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }

    static func json(_ result: Shell.Result) throws -> [String: Any] { try json(result.stdout) }

    static func json(_ text: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(object as? [String: Any], "not a JSON object: \(text)")
    }

    static func ids(_ objects: Any?) -> [Int] {
        ((objects as? [[String: Any]]) ?? []).compactMap { $0["id"] as? Int }
    }
}

/// Runs `body` with a fresh deletion disk, cleaned up however `body` ends.
func withDeletionDisk(size: String = "1G", quotas: Bool = false, _ body: (DeletionDisk) throws -> Void) throws {
    let disk = try DeletionDisk(size: size, quotas: quotas)
    defer { disk.cleanup() }
    try body(disk)
}
