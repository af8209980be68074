import Foundation

/// A real ZFS for tests: Debian 12's zfs-fuse daemon started by the test (no init system
/// runs it here), pools on sparse files under one scratch directory, their datasets
/// mounted there too. `cleanup` destroys every pool it made before stopping the daemon
/// by its PID (the daemon has died on `zfs umount -a`; nothing is unmounted by name), and
/// removes the files, on failure too. One daemon serves a machine: a second `ZFSFuse`
/// while one runs waits for the lock it holds.
public final class ZFSFuse {
    public let directory: String
    private let daemon: Process
    public private(set) var pools: [String] = []

    public static let zfs = "/usr/sbin/zfs"
    public static let zpool = "/usr/sbin/zpool"

    public init() throws {
        directory = try Integration.makeScratchDirectory()
        daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/sbin/zfs-fuse")
        daemon.arguments = ["--no-daemon", "--no-kstat-mount"]
        daemon.standardInput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: directory + "/daemon.log", contents: nil)
        let log = FileHandle(forWritingAtPath: directory + "/daemon.log")
        daemon.standardOutput = log
        daemon.standardError = log
        try daemon.run()
        // It answers once its socket is up; `zpool list` fails before that. A daemon that
        // exits at once found another one holding its lock: that one is not ours to use.
        for _ in 0..<100 {
            usleep(100_000)
            guard daemon.isRunning else { break }
            if (try? Shell.run([Self.zpool, "list"]))?.status == 0 { return }
        }
        cleanup()
        throw Shell.Failure(
            command: ["zfs-fuse", "--no-daemon"],
            result: .init(
                status: 1, stdout: "",
                stderr: "zfs-fuse exited or did not answer within 10 s (another zfs-fuse running holds its lock?)"))
    }

    /// A pool `name` on a sparse file of `size`, its root dataset mounted at
    /// `DIRECTORY/mnt/NAME`; returns the file.
    @discardableResult
    public func pool(_ name: String, size: String = "256M", on device: String? = nil) throws -> String {
        let file = device ?? directory + "/\(name).img"
        if device == nil { try Shell.check(["truncate", "-s", size, file]) }
        // cachefile=none: a run killed before its cleanup leaves no pool in zpool.cache for
        // the next daemon to import (a stale pool of the same name made the next run fail).
        try Shell.check([Self.zpool, "create", "-o", "cachefile=none", "-m", mountpoint(of: name), name, file])
        pools.append(name)
        return file
    }

    public func mountpoint(of pool: String) -> String { directory + "/mnt/" + pool }

    /// Runs `zfs ARGUMENTS` and returns its stdout; throws when it fails.
    @discardableResult
    public func zfs(_ arguments: String...) throws -> String { try Shell.check([Self.zfs] + arguments) }

    /// The snapshots of `pool` as `zfs list` names them: the reference a test compares with.
    public func snapshots(of pool: String) throws -> Set<String> {
        let text = try Shell.check([Self.zfs, "list", "-H", "-t", "snapshot", "-o", "name", "-r", pool])
        return Set(text.split(separator: "\n").map(String.init))
    }

    /// The `zfs destroy` commands the pool's history records (zfs-fuse logs each one).
    public func destroyCommands(of pool: String) throws -> [String] {
        try Shell.check([Self.zpool, "history", pool]).split(separator: "\n")
            .compactMap { line in
                line.firstRange(of: " zfs destroy ").map { String(line[$0.lowerBound...].dropFirst()) }
            }
    }

    /// Destroys the pools (with their mounts), stops the daemon by its PID, removes the files.
    public func cleanup() {
        // zfs-fuse answers "pool is busy" for a moment after its mounts were used: try again.
        for pool in pools.reversed() {
            var result = try? Shell.run([Self.zpool, "destroy", "-f", pool])
            for attempt in 0..<20 where result?.status != 0 {
                usleep(250_000)
                // Still busy after a while: its datasets unmounted one by one, deepest first
                // (never `zfs umount -a`, which has killed the daemon).
                if attempt == 8 { unmountDatasets(of: pool) }
                result = try? Shell.run([Self.zpool, "destroy", "-f", pool])
            }
            if result?.status != 0 {
                FileHandle.standardError.write(Data("zpool destroy -f \(pool): \(result?.stderr ?? "")\n".utf8))
            }
        }
        pools = []
        if daemon.isRunning {
            kill(daemon.processIdentifier, SIGTERM)
            for _ in 0..<50 where daemon.isRunning { usleep(100_000) }
            if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) }
            daemon.waitUntilExit()
        }
        // Never through a mount that is left (a pool that refused to go).
        let mounts = Integration.kernelText("/proc/self/mountinfo")
        if !mounts.contains(" \(directory)/") { try? FileManager.default.removeItem(atPath: directory) }
    }

    private func unmountDatasets(of pool: String) {
        let text = (try? Shell.run([Self.zfs, "list", "-H", "-o", "name", "-r", pool]))?.stdout ?? ""
        for dataset in text.split(separator: "\n").reversed() {
            _ = try? Shell.run([Self.zfs, "unmount", "-f", String(dataset)])
        }
    }

    /// Runs `body` with a running zfs-fuse, cleaned up however it ends.
    public static func with<Result>(_ body: (ZFSFuse) throws -> Result) throws -> Result {
        let zfs = try ZFSFuse()
        defer { zfs.cleanup() }
        return try body(zfs)
    }
}
