import CarveCore
import Synchronization

/// Runs `zfs` and `zpool`, always by absolute path from the system directories (never
/// PATH), with `LC_ALL=C` so that their messages are the ones carve quotes; and learns the
/// dialect they speak once per run (`ZFSDialect`).
public final class ZFSTool: Sendable {
    /// What one run printed.
    public struct Run: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
        public init(status: Int32, stdout: String, stderr: String = "") {
            self.status = status; self.stdout = stdout; self.stderr = stderr
        }
    }

    /// Runs `arguments` (`arguments[0]` is `zfs` or `zpool`); nil when that tool is not
    /// installed. The real one is `ZFSTool.system`; tests replay transcripts.
    public typealias Runner = @Sendable ([String]) throws -> Run?

    let runner: Runner
    private let dialect = Mutex<ZFSDialect?>(nil)

    public init(runner: @escaping Runner = ZFSTool.system) { self.runner = runner }

    /// The installed tool by absolute path; nil when it is not installed.
    public static func system(_ arguments: [String]) throws -> Run? {
        guard ChildProcess.systemTool(arguments[0]) != nil else { return nil }
        let result = try ChildProcess.runTool(arguments, environment: ["LC_ALL": "C"])
        return Run(
            status: result.status, stdout: ByteText.decode(result.stdout), stderr: ByteText.decode(result.stderr))
    }

    /// The run of `arguments`; `ZFSToolMissing` when the tool is not installed.
    func run(_ arguments: [String]) throws -> Run {
        guard let run = try runner(arguments) else { throw ZFSToolMissing(tool: arguments[0]) }
        return run
    }

    /// The standard output of a run that succeeded; else a `ZFSCommandFailure` with what
    /// the tool said.
    func output(_ arguments: [String]) throws -> String {
        let run = try run(arguments)
        guard run.status == 0 else { throw ZFSCommandFailure(arguments: arguments, run: run) }
        return run.stdout
    }

    /// What this `zfs` and `zpool` can do: their usage texts, read on first need.
    public func currentDialect() throws -> ZFSDialect {
        if let known = dialect.withLock({ $0 }) { return known }
        // Each prints its usage on stderr and exits 2 when run without a command.
        let zfs = try run(["zfs"]), get = try run(["zfs", "get"]), zpool = try run(["zpool"])
        let detected = ZFSDialect.detect(
            zfsUsage: zfs.stderr + zfs.stdout, getUsage: get.stderr + get.stdout,
            zpoolUsage: zpool.stderr + zpool.stdout)
        dialect.withLock { $0 = detected }
        return detected
    }
}

/// `zfs` or `zpool` is not installed: the package that has them is named.
public struct ZFSToolMissing: ReportableError {
    public var tool: String
    public var message: String {
        "\(tool) is not installed (looked in \(ChildProcess.systemDirectories.joined(separator: ", "))): "
            + "install zfsutils-linux (OpenZFS) or zfs-fuse"
    }
    public var exitStatus: ExitStatus { .failure }
}

/// `zfs` or `zpool` failed: its own last words, and whether they say the dataset named
/// does not exist (bad input rather than a failure).
public struct ZFSCommandFailure: ReportableError {
    public var arguments: [String]
    public var run: ZFSTool.Run

    /// What the tool said: its stderr's lines without the usage text it may add.
    public var reason: String {
        let lines = run.stderr.split(separator: "\n").map(String.init).prefix { !$0.hasPrefix("usage:") }
        return lines.filter { !$0.isEmpty }.joined(separator: "; ")
    }

    public var message: String {
        let said = reason
        return "\(arguments.prefix(2).joined(separator: " ")) failed (exit \(run.status))"
            + (said.isEmpty ? "" : ": \(said)")
    }

    public var exitStatus: ExitStatus { .failure }

    /// True when the tool said a dataset does not exist.
    public var isNoSuchDataset: Bool { run.stderr.containsText("dataset does not exist") }

    /// True when OpenZFS's kernel module is not loaded (`libzfs_error_init`'s ENXIO text):
    /// no pool can be imported, so there is none.
    public var isModuleNotLoaded: Bool { run.stderr.containsText("The ZFS modules are not loaded") }
}
