import Foundation

/// systemd-udevd for tests: started when a test needs it and it is not running,
/// and stopped only when this process started it.
public enum Udevd {
    /// True when some udevd is running.
    public static var isRunning: Bool { (try? Shell.run(["pgrep", "-x", "systemd-udevd"]).status) == 0 }

    /// Starts udevd unless one runs; returns true when this call started it.
    @discardableResult
    public static func start() throws -> Bool {
        guard !isRunning else { return false }
        let binary = ["/lib/systemd/systemd-udevd", "/usr/lib/systemd/systemd-udevd"]
            .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "systemd-udevd"
        try Shell.check([binary, "--daemon"])
        // Replay add events so devices that exist already get their database entries.
        try Shell.check(["udevadm", "trigger", "--subsystem-match=block", "--action=add"])
        try Shell.check(["udevadm", "settle", "--timeout=30"])
        return true
    }

    /// Stops udevd if `startedByUs`; leaves a udevd it did not start alone.
    public static func stop(startedByUs: Bool) {
        guard startedByUs else { return }
        _ = try? Shell.run(["udevadm", "control", "--exit"])
        for _ in 0..<50 where isRunning { usleep(100_000) }
    }

    /// Waits until udevd has processed every queued event (no-op without udevd).
    public static func settle() {
        guard isRunning else { return }
        _ = try? Shell.run(["udevadm", "settle", "--timeout=30"])
    }
}
