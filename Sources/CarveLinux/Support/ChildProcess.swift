import CarveCore
import Glibc

/// Runs another program and waits for it: the report-only tools `carve check` asks
/// (ntfsresize, lvs, …), and the reference tools of the tests.
///
/// posix_spawn (carve's own tools by absolute path from the system directories; the
/// tests' reference tools through /usr/bin/env, so PATH is searched), output into unlinked
/// files rather than pipes: nothing to drain while the child runs, no deadlock on a
/// chatty child, and a daemon it leaves behind cannot hold the result open.
public enum ChildProcess {
    public struct Result: Sendable {
        /// The exit code, or the signal number when the program was killed.
        public let status: Int32
        public let stdout: [UInt8]
        public let stderr: [UInt8]
    }

    /// Runs `arguments[0]` with this process's environment plus `environment`; never
    /// throws for a non-zero exit, only when the program cannot be started.
    public static func run(
        _ arguments: [String], input: [UInt8] = [], environment: [String: String] = [:]
    ) throws -> Result {
        try run(program: "/usr/bin/env", ["env"] + arguments, input: input, environment: environment)
    }

    /// The directories a system tool carve runs is taken from, in this order: never
    /// PATH, since carve runs as root with whatever environment it was given.
    public static let systemDirectories = ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]

    /// Where the system tool `name` is: the first executable of that name in
    /// `systemDirectories`; nil when it is not installed.
    public static func systemTool(_ name: String) -> String? {
        guard !name.contains("/") else { return nil }
        return systemDirectories.map { $0 + "/" + name }.first(where: Files.isExecutable)
    }

    /// Runs the system tool `arguments[0]` by its absolute path (`systemTool`); a
    /// `RuntimeError` when it is not installed.
    public static func runTool(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        guard let program = systemTool(arguments[0]) else {
            throw RuntimeError(
                "\(arguments[0]) is not installed (looked in \(systemDirectories.joined(separator: ", ")))")
        }
        return try run(program: program, arguments, input: [], environment: environment)
    }

    private static func run(
        program: String, _ arguments: [String], input: [UInt8], environment: [String: String]
    ) throws -> Result {
        let stdin = try ScratchFile(input)
        let stdout = try ScratchFile(), stderr = try ScratchFile()
        let pid = try spawn(
            program, arguments, stdin: stdin.fd, stdout: stdout.fd, stderr: stderr.fd,
            environment: currentEnvironment(overriddenBy: environment))
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else {
                throw SystemCallError("cannot wait for \(arguments[0])", call: "waitpid", errno: errno)
            }
        }
        let signal = status & 0x7f
        return Result(
            status: signal == 0 ? (status >> 8) & 0xff : signal,
            stdout: try stdout.contents(), stderr: try stderr.contents())
    }

    /// `environ` as NAME=value lines, with `overrides` replacing or adding entries.
    static func currentEnvironment(overriddenBy overrides: [String: String]) -> [String] {
        var lines: [String] = []
        var entry = environ
        while let line = entry.pointee {
            let text = String(cString: line)
            let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if overrides[name] == nil { lines.append(text) }
            entry += 1
        }
        return lines + overrides.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }

    /// `program` with `arguments`: fds 0-2 given, every other descriptor closed,
    /// default signal dispositions, in its own process group (a Ctrl-C reaches carve,
    /// which decides what to stop).
    private static func spawn(
        _ program: String, _ arguments: [String], stdin: Int32, stdout: Int32, stderr: Int32,
        environment: [String]
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer { posix_spawn_file_actions_destroy(&actions); posix_spawnattr_destroy(&attributes) }
        for (fd, target) in [(stdin, STDIN_FILENO), (stdout, STDOUT_FILENO), (stderr, STDERR_FILENO)] {
            posix_spawn_file_actions_adddup2(&actions, fd, target)
        }
        // Directory and lock descriptors must not leak into the child. (addclosefrom_np
        // needs _GNU_SOURCE, which Swift's Glibc module does not define; closing a
        // descriptor that is not open is no error. This is carve's own /proc/self,
        // never under a HostRoot.)
        for name in Files.names(in: "/proc/self/fd") ?? [] {
            if let fd = Int32(name), fd > STDERR_FILENO { posix_spawn_file_actions_addclose(&actions, fd) }
        }
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, program, &actions, &attributes, argv, envp)
        guard code == 0 else {
            throw SystemCallError("cannot run \(program)", call: "posix_spawn", errno: code)
        }
        return pid
    }
}

/// An unlinked temporary file; its descriptor's one owner is a `FileDescriptor`.
private struct ScratchFile {
    let file: FileDescriptor
    var fd: Int32 { file.fd }

    init(_ contents: [UInt8] = []) throws {
        var template = Array("/tmp/carve-run-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else {
            throw SystemCallError("cannot make a temporary file in /tmp", call: "mkstemp", errno: errno)
        }
        file = FileDescriptor(adopting: fd, path: "a temporary file")
        unlink(template)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var written = 0
        while written < contents.count {
            let count = contents[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            guard count > 0 else {
                throw SystemCallError("cannot write a temporary file", call: "write", errno: errno)
            }
            written += count
        }
        lseek(fd, 0, SEEK_SET)
    }

    func contents() throws -> [UInt8] {
        try Files.contents(of: fd, "cannot read a temporary file")
    }
}
