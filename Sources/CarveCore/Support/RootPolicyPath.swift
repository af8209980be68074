/// What an `fstat` of one step of a path says, the step not followed: a directory, the
/// file, or a symlink on the way.
public struct PathStep: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case directory, regularFile, symlink, other }

    public var kind: Kind
    public var owner: UInt32
    /// The permission bits with the set-id and sticky bits (`st_mode & 0o7777`).
    public var mode: UInt32

    public init(_ kind: Kind, owner: UInt32, mode: UInt32) {
        self.kind = kind; self.owner = owner; self.mode = mode
    }

    static let sticky: UInt32 = 0o1000
}

/// The platform's side of `RootPolicyPath`: opens one step at a time and never follows a
/// symlink by itself (CarveLinux: `openat` with `O_PATH|O_NOFOLLOW` relative to the
/// directory before, `fstat` of what was opened, `readlinkat`).
public protocol PathStepping {
    associatedtype Handle
    /// "/" and what it is.
    func root() throws -> (handle: Handle, step: PathStep)
    /// The entry `name` of `directory` (`..`: its parent), not followed; nil when there is none.
    func open(_ name: String, in directory: Handle) throws -> (handle: Handle, step: PathStep)?
    /// Where the symlink opened as `link` points.
    func target(of link: Handle) throws -> String
}

/// A policy file as root reads it (`--options-file`, the timers' /etc/carve/*/NAME.conf):
/// only when the file and every directory on the way to it are root's and writable by
/// root alone, as cron, sudo and systemd's credentials demand of what they run as root. A
/// file another user can change, or replace by renaming a directory above it, could turn
/// on `--ignore-in-use` or `--break-chains` for a root timer.
///
/// The path is walked one step at a time from "/", each step checked as it is opened,
/// not followed: a symlink is followed only from a directory that passed, and where it
/// points is walked and checked the same way (a link in /etc/carve to a file in a user's
/// home is refused at the home). One exception, as in /tmp: a directory with the sticky
/// bit may be writable by others, since there only an entry's owner can rename or remove
/// it, and the next step must be root's anyway.
public enum RootPolicyPath {
    /// Symlinks followed at most, as the kernel's own limit (ELOOP).
    public static let hopLimit = 40

    /// The walk's end: the file, the directory holding it and its name there.
    public struct Resolved<Handle> {
        public var directory: Handle
        public var name: String
        public var file: Handle
    }

    /// Resolves `path` (absolute) with `stepper`; nil when there is no such file. Throws a
    /// `UsageError` naming `path` and the step that is not root's alone (its owner and
    /// mode), or a `RuntimeError` when it is no regular file or the links go round.
    public static func resolve<Stepper: PathStepping>(
        _ path: String, with stepper: Stepper
    ) throws -> Resolved<Stepper.Handle>? {
        let top = try stepper.root()
        try check(top.step, at: "/", of: path, linked: false)
        var directory = top.handle
        var pending = components(path)
        var shown: [String] = []
        var hops = 0
        while !pending.isEmpty {
            let name = pending.removeFirst()
            guard let (handle, found) = try stepper.open(name, in: directory) else { return nil }
            let here = name == ".." ? Array(shown.dropLast()) : shown + [name]
            try check(found, at: "/" + here.joined(separator: "/"), of: path, linked: hops > 0)
            switch found.kind {
            case .directory:
                directory = handle
                shown = here
            case .symlink:
                hops += 1
                guard hops <= hopLimit else { throw RuntimeError("\(path): too many levels of symbolic links") }
                let target = try stepper.target(of: handle)
                pending = components(target) + pending
                if target.hasPrefix("/") {
                    directory = try stepper.root().handle
                    shown = []
                }
            case .regularFile where pending.isEmpty:
                return Resolved(directory: directory, name: name, file: handle)
            case .regularFile, .other:
                // A file where a directory is due reads as none, as open(2) says ENOTDIR.
                if !pending.isEmpty { return nil }
                throw RuntimeError("\(path) is not a regular file")
            }
        }
        throw RuntimeError("\(path) is not a regular file")
    }

    /// The refusal of a step that is not root's alone; nil when it is.
    public static func refusal(_ step: PathStep, at place: String, of path: String, linked: Bool) -> UsageError? {
        let found = "owner uid \(step.owner), mode \(octal(step.mode))"
        let reason: String
        if step.owner != 0 {
            reason = "owned by uid \(step.owner) (mode \(octal(step.mode)))"
        } else if step.kind == .symlink {
            return nil // A link's own mode means nothing; who made it, and where, does.
        } else if step.kind == .directory && step.mode & PathStep.sticky != 0 {
            return nil
        } else if step.mode & 0o020 != 0 {
            reason = "writable by its group (\(found))"
        } else if step.mode & 0o002 != 0 {
            reason = "writable by others (\(found))"
        } else {
            return nil
        }
        let which = place == path ? "it is" : "\(place)\(linked ? ", reached through a symlink," : "") is"
        return UsageError(
            "\(path): not read as root: \(which) \(reason); a policy file and every directory above it "
                + "must be root's and writable by root alone")
    }

    private static func check(_ step: PathStep, at place: String, of path: String, linked: Bool) throws {
        if let refusal = refusal(step, at: place, of: path, linked: linked) { throw refusal }
    }

    /// The names of a path, "." and empty ones left out ("//a/./b" → ["a", "b"]).
    static func components(_ path: String) -> [String] {
        path.split(separator: "/").map(String.init).filter { $0 != "." }
    }

    static func octal(_ mode: UInt32) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
