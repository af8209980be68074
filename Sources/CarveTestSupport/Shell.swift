import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs reference tools (lsblk, blkid, mkfs, btrfs, snapper, carve itself) for tests.
///
/// posix_spawn, not Foundation's Process: Process leaks a weak-reference side table
/// per run (LeakSanitizer reports it under `Scripts/sanitize address`) and keeps a
/// run-loop thread; this needs neither.
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
    public static func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws -> Result {
        // Unlinked files, not pipes: nothing to drain while the child runs, no deadlock on
        // a chatty child, and a daemon the command leaves behind cannot hold the result open.
        let stdin = try ScratchFile(input.map { Array($0.utf8) } ?? [])
        let stdout = try ScratchFile(), stderr = try ScratchFile()
        let pid = try spawn(["env"] + arguments, stdin: stdin.fd, stdout: stdout.fd, stderr: stderr.fd,
                            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw SpawnError(call: "waitpid", errno: errno) }
        }
        let signal = status & 0x7f
        return Result(
            status: signal == 0 ? (status >> 8) & 0xff : signal,
            stdout: String(decoding: try stdout.contents(), as: UTF8.self),
            stderr: String(decoding: try stderr.contents(), as: UTF8.self)
        )
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

    /// /usr/bin/env with `arguments`: fds 0-2 from the caller, every other descriptor
    /// closed, default signal dispositions, in its own process group (as Process did).
    private static func spawn(_ arguments: [String], stdin: Int32, stdout: Int32, stderr: Int32,
                              environment: [String: String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer { posix_spawn_file_actions_destroy(&actions); posix_spawnattr_destroy(&attributes) }
        for (fd, target) in [(stdin, STDIN_FILENO), (stdout, STDOUT_FILENO), (stderr, STDERR_FILENO)] {
            posix_spawn_file_actions_adddup2(&actions, fd, target)
        }
        // Tests hold directory and lock descriptors on their mounts; a child such as
        // umount must not inherit them. (addclosefrom_np needs _GNU_SOURCE, which Swift's
        // Glibc module does not define; closing a descriptor that is not open is no error.)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            if let fd = Int32(name), fd > STDERR_FILENO { posix_spawn_file_actions_addclose(&actions, fd) }
        }
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, "/usr/bin/env", &actions, &attributes, argv, envp)
        guard code == 0 else { throw SpawnError(call: "posix_spawn", errno: code) }
        return pid
    }
}

/// An unlinked temporary file, closed on deinit.
private final class ScratchFile {
    let fd: Int32

    init(_ contents: [UInt8] = []) throws {
        var template = Array("/tmp/carve-shell-XXXXXX".utf8CString)
        fd = mkstemp(&template)
        guard fd >= 0 else { throw SpawnError(call: "mkstemp", errno: errno) }
        unlink(template)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var written = 0
        while written < contents.count {
            let count = contents[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { close(fd); throw SpawnError(call: "write", errno: errno) }
            written += count
        }
        lseek(fd, 0, SEEK_SET)
    }

    deinit { close(fd) }

    func contents() throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var offset: off_t = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            guard count >= 0 else { throw SpawnError(call: "pread", errno: errno) }
            if count == 0 { return bytes }
            bytes += buffer[..<count]
            offset += off_t(count)
        }
    }
}

public struct SpawnError: Error, CustomStringConvertible {
    public let call: String
    public let errno: Int32
    public var description: String { "\(call): \(String(cString: strerror(errno)))" }
}
