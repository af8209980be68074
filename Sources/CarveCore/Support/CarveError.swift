/// An error carve reports to the user: one line, and the exit status it ends with.
///
/// Every error type in carve conforms, so the command line can turn any thrown
/// error into `carve: <message>` on stderr and the documented exit code.
public protocol ReportableError: Error, CustomStringConvertible {
    /// One line naming the input or object and the reason, without a "carve:" prefix.
    var message: String { get }
    var exitStatus: ExitStatus { get }
}

extension ReportableError {
    public var description: String { message }

    /// The exit status for a caller who is root (`asRoot`) or not: "needs root" is
    /// said only to someone who is not. As root, a refusal (EPERM, EACCES from a
    /// sandbox or a security module) is a failure whose message names the cause.
    public func exitStatus(asRoot: Bool) -> ExitStatus {
        asRoot && exitStatus == .needsRoot ? .failure : exitStatus
    }
}

/// Bad input from the user: exit 64, nothing changed.
public struct UsageError: ReportableError, Equatable {
    public let message: String
    public var exitStatus: ExitStatus { .usage }
    public init(_ message: String) { self.message = message }
}

/// A runtime failure that is not the user's input: exit 1.
public struct RuntimeError: ReportableError, Equatable {
    public let message: String
    public var exitStatus: ExitStatus { .failure }
    public init(_ message: String) { self.message = message }
}

/// The operation needs privileges the caller lacks: exit 77.
public struct NeedsRootError: ReportableError, Equatable {
    /// What could not be done without root, e.g. "reading quota sizes".
    public let what: String
    public var message: String { "\(what) needs root" }
    public var exitStatus: ExitStatus { .needsRoot }
    public init(_ what: String) { self.what = what }

    /// Exact sizes read every tree with a tree search, which needs CAP_SYS_ADMIN.
    public static let exactSizes = NeedsRootError("reading exact sizes (--sizes exact)")
}

/// Text from outside carve that it cannot read (a /proc file, a tool's output):
/// one line naming the text, where, and why. Exit status 1.
public struct ParseError: ReportableError, Equatable {
    /// "cannot parse /proc/swaps line 3", "cannot read the output of resize2fs -P".
    public let context: String
    public let reason: String
    public var message: String { "\(context): \(reason)" }
    public var exitStatus: ExitStatus { .failure }

    /// Line `line` (from 1) of `file`.
    public init(line: Int, of file: String, reason: String) {
        context = "cannot parse \(file) line \(line)"; self.reason = reason
    }

    /// What `tool` printed.
    public init(tool: String, reason: String) {
        context = "cannot read the output of \(tool)"; self.reason = reason
    }
}

/// A failed system or library call: keeps the call's name and errno as data.
public struct SystemCallError: ReportableError, Equatable {
    /// What carve was doing, e.g. "cannot open /dev/loop3".
    public let context: String
    /// The C function that failed, e.g. "blkid_new_probe_from_filename".
    public let call: String
    /// errno (positive), or 0 when the call gave no errno.
    public let errno: Int32
    /// The exit status: permission errors map to "needs root" (but see `exitStatus(asRoot:)`).
    public var exitStatus: ExitStatus { errno == Errno.EPERM || errno == Errno.EACCES ? .needsRoot : .failure }

    public init(_ context: String, call: String, errno: Int32) {
        self.context = context
        self.call = call
        self.errno = errno
    }

    /// The context, then the cause once: "cannot open /dev/loop3: permission denied (EACCES, open)".
    public var message: String { "\(context): \(cause)" }

    /// Why, without what carve was doing: for a report that names the object itself.
    public var cause: String { errno == 0 ? "\(call) failed" : Errno.describe(errno, call: call) }
}

/// errno names and texts without importing libc into the core.
public enum Errno {
    /// The values carve tests for by name (Linux's numbers; CarveCore imports no libc).
    public static let EPERM: Int32 = 1, ENOENT: Int32 = 2, EACCES: Int32 = 13, EBUSY: Int32 = 16, ENOTDIR: Int32 = 20

    private static let names: [Int32: (String, String)] = [
        1: ("EPERM", "operation not permitted"), 2: ("ENOENT", "no such file or directory"),
        5: ("EIO", "input/output error"), 6: ("ENXIO", "no such device or address"),
        9: ("EBADF", "bad file descriptor"), 11: ("EAGAIN", "resource temporarily unavailable"),
        12: ("ENOMEM", "out of memory"), 13: ("EACCES", "permission denied"),
        16: ("EBUSY", "device or resource busy"), 17: ("EEXIST", "file exists"),
        18: ("EXDEV", "on another filesystem"), 19: ("ENODEV", "no such device"),
        20: ("ENOTDIR", "not a directory"), 21: ("EISDIR", "is a directory"),
        22: ("EINVAL", "invalid argument"), 25: ("ENOTTY", "not a btrfs filesystem or device"),
        28: ("ENOSPC", "no space left on device"), 30: ("EROFS", "read-only filesystem"),
        36: ("ENAMETOOLONG", "file name too long"), 39: ("ENOTEMPTY", "directory not empty"),
        40: ("ELOOP", "too many levels of symbolic links"), 61: ("ENODATA", "no data available"),
        95: ("EOPNOTSUPP", "operation not supported"), 110: ("ETIMEDOUT", "timed out"),
    ]

    /// The symbolic name, e.g. "EBUSY", or "errno 123".
    public static func name(_ code: Int32) -> String { names[code]?.0 ?? "errno \(code)" }

    /// "device or resource busy (EBUSY)", or with the call that failed:
    /// "device or resource busy (EBUSY, ioctl)".
    public static func describe(_ code: Int32, call: String? = nil) -> String {
        let from = call.map { ", \($0)" } ?? ""
        guard let (name, text) = names[code] else { return "errno \(code)" + (call.map { " (\($0))" } ?? "") }
        return "\(text) (\(name)\(from))"
    }
}
