import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// The directory `carve devices --dump DIR` writes, as root: made by carve (or found
/// empty), then written only through its own descriptor. Every directory inside is made
/// with mkdirat and opened with `O_NOFOLLOW` relative to the one above it, every file
/// opened with `O_NOFOLLOW` there, so a symlink planted inside DIR is never followed: a
/// dump can write nowhere but DIR.
final class DumpDirectory {
    let path: String
    private let root: FileDescriptor
    /// The directories opened so far, by their path inside DIR ("" is DIR).
    private var opened: [String: FileDescriptor] = [:]

    /// Makes `path` (its parent must exist), or takes it when it is an empty directory.
    /// A non-empty directory, a symlink or a file there is bad input: nothing is written.
    init(making path: String) throws {
        self.path = path
        let parent = PathText.parent(of: path)
        let made = ByteText.withCString(path) { mkdir($0, 0o755) } == 0
        if !made && errno != EEXIST {
            if errno == ENOENT { throw UsageError("--dump \(path): no such directory \(parent)") }
            throw SystemCallError("cannot make \(path)", call: "mkdir", errno: errno)
        }
        root = try Self.openEmpty(path, made: made)
        opened[""] = root
    }

    /// DIR, opened without following a symlink; refused when something is in it.
    private static func openEmpty(_ path: String, made: Bool) throws -> FileDescriptor {
        let root: FileDescriptor
        do {
            root = try FileDescriptor.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, "cannot open \(path)")
        } catch {
            guard error.errno == ELOOP || error.errno == ENOTDIR else { throw error }
            // With O_DIRECTORY, Linux says ENOTDIR for a symlink too.
            let what = Files.linkTarget(path) != nil ? "a symlink" : "not a directory"
            throw UsageError("--dump \(path): \(what), not written to")
        }
        if !made, !(try DirectoryAccess.entryNames(root, path)).isEmpty {
            throw UsageError("--dump \(path): not empty; a dump goes into a new or empty directory")
        }
        return root
    }

    /// Writes `bytes` to the file `relative` ("/sys/devices/…/size") inside DIR,
    /// replacing a file this dump wrote there before.
    func writeFile(_ relative: String, _ bytes: [UInt8]) throws {
        let (directory, name) = try place(relative)
        let context = "cannot write \(path)\(relative)"
        let file = try FileDescriptor.open(
            name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: 0o644, relativeTo: directory, context)
        try file.closeAfter { try $0.writeAll(bytes, context) }
    }

    /// Makes the symlink `relative` inside DIR point to `target` (replacing one this
    /// dump made there before); the link is made, never followed.
    func link(_ relative: String, to target: String) throws {
        let (directory, name) = try place(relative)
        let context = "cannot write \(path)\(relative)"
        try directory.removeEntry(name, context)
        try directory.makeSymlink(name, to: target, context)
    }

    /// Makes the directory `relative` ("/sys/block") and every one above it inside DIR.
    @discardableResult
    func makeDirectories(_ relative: String) throws -> FileDescriptor {
        let key = String(relative.drop { $0 == "/" })
        if let directory = opened[key] { return directory }
        let above = try makeDirectories(PathText.parent(of: "/" + key))
        let name = PathText.lastComponent(of: key)
        let context = "cannot make \(path)/\(key)"
        try above.makeDirectory(name, mode: 0o755, context)
        let directory = try DirectoryAccess.open(name, at: above, context)
        opened[key] = directory
        return directory
    }

    /// The directory that holds `relative` (made when missing) and the name in it.
    private func place(_ relative: String) throws -> (FileDescriptor, String) {
        (try makeDirectories(PathText.parent(of: relative)), PathText.lastComponent(of: relative))
    }
}
