import CarveLinux
#if canImport(Glibc)
import Glibc
#endif

/// Runs reference tools (lsblk, blkid, mkfs, btrfs, snapper, carve itself) for tests,
/// with carve's own ChildProcess (posix_spawn). Not Foundation's Process: it leaks a
/// weak-reference side table per run (LeakSanitizer reports it under
/// `Scripts/sanitize address`) and keeps a run-loop thread.
public enum Shell {
    public struct Result: Sendable {
        /// The exit code, or the signal number when the command was killed (as Process reported it).
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    public struct Failure: Error, CustomStringConvertible {
        public let command: [String]
        public let result: Result
        public var description: String {
            "\(command.joined(separator: " ")) exited \(result.status): \(result.stderr)\(result.stdout)"
        }
    }

    /// Runs `arguments[0]` (looked up in PATH by env(1)) and waits; never throws for a non-zero exit.
    @discardableResult
    public static func run(
        _ arguments: [String], input: String? = nil, environment: [String: String] = [:]
    ) throws -> Result {
        let run = try ChildProcess.run(arguments, input: input.map { Array($0.utf8) } ?? [], environment: environment)
        return Result(
            status: run.status, stdout: String(decoding: run.stdout, as: UTF8.self),
            stderr: String(decoding: run.stderr, as: UTF8.self))
    }

    /// Runs and throws `Failure` unless the command exits 0; returns stdout.
    @discardableResult
    public static func check(_ arguments: [String], input: String? = nil) throws -> String {
        let result = try run(arguments, input: input)
        guard result.status == 0 else { throw Failure(command: arguments, result: result) }
        return result.stdout
    }

    /// True when `tool` is on PATH.
    public static func has(_ tool: String) -> Bool {
        (try? run(["sh", "-c", "command -v \(tool)"]).status) == 0
    }
}
