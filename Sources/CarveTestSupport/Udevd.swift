import Foundation

/// systemd-udevd for tests: started when a test needs it and it is not running,
/// and stopped only when this process started it.
public enum Udevd {
    /// True when some udevd is running.
    public static var isRunning: Bool {
        // A udevd that exited can linger as a zombie, which plain pgrep still matches.
        (try? Shell.run(["pgrep", "-x", "--runstates", "R,S,D", "systemd-udevd"]).status) == 0
    }

    /// Starts udevd unless one runs; returns true when this call started it. Devices
    /// that existed before have no record until the test triggers them by name.
    @discardableResult
    public static func start() throws -> Bool {
        guard !isRunning else { return false }
        let binary =
            ["/lib/systemd/systemd-udevd", "/usr/lib/systemd/systemd-udevd"]
            .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "systemd-udevd"
        // Not `--daemon` through Shell.run: the daemon keeps a descriptor Foundation's
        // Process watches for the child's exit, so waiting for it never returns.
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        daemon.arguments = [binary, "--daemon"]
        daemon.standardInput = FileHandle.nullDevice
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        // Its control socket answers once it is ready (a stale socket file refuses until then).
        var ready = false
        for _ in 0..<100 where !ready {
            ready = (try? Shell.run(["udevadm", "control", "--ping", "--timeout=5"]))?.status == 0
            if !ready { usleep(100_000) }
        }
        guard ready else {
            throw Shell.Failure(
                command: [binary, "--daemon"],
                result: .init(status: 1, stdout: "", stderr: "udevd did not answer a ping within 10 s"))
        }
        // No global "udevadm trigger": that would replay events for devices tests did
        // not make (the system disk among them). A test triggers its own devices.
        return true
    }

    /// Stops udevd if `startedByUs`; leaves a udevd it did not start alone.
    public static func stop(startedByUs: Bool) {
        guard startedByUs else { return }
        // Let it process the remove events of the test's loop devices first, so it
        // leaves fewer records behind for lsblk to believe later.
        settle()
        _ = try? Shell.run(["udevadm", "control", "--exit"])
        for _ in 0..<50 where isRunning { usleep(100_000) }
        // Seen once while other suites flooded it with events: it did not exit. None ran
        // before this process started it, so whichever udevd runs now is the one it started.
        for signal in ["TERM", "KILL"] where isRunning {
            _ = try? Shell.run(["pkill", "-\(signal)", "-x", "systemd-udevd"])
            for _ in 0..<30 where isRunning { usleep(100_000) }
        }
    }

    /// Waits until udevd has processed every queued event (no-op without udevd). With
    /// `nodes`, it first asks udevd to read those devices again: the change event a
    /// close after mkfs makes comes through inotify, maybe after a plain settle
    /// returned, and until then the record says what the device held before.
    public static func settle(_ nodes: [String] = []) {
        guard isRunning else { return }
        if !nodes.isEmpty { try? trigger(nodes) }
        _ = try? Shell.run(["udevadm", "settle", "--timeout=30"])
    }

    /// Asks a running udevd to read `nodes` again and waits until it has; throws when it
    /// could not. Only a running udevd answers `--settle` (without one it waits for
    /// ever), and one that exits meanwhile would leave it waiting too: bounded.
    public static func trigger(_ nodes: [String]) throws {
        try Shell.check(["timeout", "60", "udevadm", "trigger", "--action=change", "--settle"] + nodes)
    }
}
