import CarveCore
import Glibc

/// The exact sizes cache on disk: one file per filesystem UUID in `/var/cache/carve`
/// (`CARVE_CACHE_DIR` elsewhere, for tests; `CARVE_CACHE=off` for none), root's only,
/// mode 0600. Every open is relative to the directory and never follows a symlink; a
/// file is replaced by writing a temporary beside it and renaming it over, so a
/// reader, or a second carve writing at the same time, sees a whole file or none.
/// All of the cache's file I/O is here.
struct ExactSizesCacheStore {
    static let defaultDirectory = "/var/cache/carve"
    let directory: String

    /// The store the environment asks for; nil when `CARVE_CACHE` is `off` (or `0`, `no`).
    static func fromEnvironment() -> ExactSizesCacheStore? {
        if let setting = getenv("CARVE_CACHE").map({ String(cString: $0).lowercased() }),
            ["off", "0", "no", "false"].contains(setting)
        {
            return nil
        }
        let directory = getenv("CARVE_CACHE_DIR").map { String(cString: $0) }
        return ExactSizesCacheStore(directory: directory.flatMap { $0.isEmpty ? nil : $0 } ?? defaultDirectory)
    }

    enum Loaded {
        /// No cache yet: nothing to say.
        case missing
        case found(ExactSizesCache)
        /// A file that is not used, and why; it is replaced by the next write.
        case unusable(String)
    }

    /// The cache of filesystem `uuid`.
    func load(filesystem uuid: String) -> Loaded {
        guard let name = Self.fileName(uuid) else { return .unusable("\(uuid) is not a filesystem UUID") }
        let path = directory + "/" + name
        let dir: FileDescriptor
        do {
            dir = try openDirectory()
        } catch {
            return error.errno == ENOENT ? .missing : .unusable("cannot open \(directory)")
        }
        if let problem = Self.notRootsOnly(dir.fd) { return .unusable("\(directory) \(problem)") }
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(
                name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, relativeTo: dir, "cannot open \(path)")
        } catch {
            switch error.errno {
            case ENOENT: return .missing
            case ELOOP: return .unusable("\(path) is a symlink")
            default: return .unusable("cannot open \(path): \(Errno.describe(error.errno))")
            }
        }
        var status = stat()
        guard fstat(file.fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            return .unusable("\(path) is not a regular file")
        }
        if let problem = Self.notRootsOnly(file.fd) { return .unusable("\(path) \(problem)") }
        do {
            let bytes = try Files.contents(of: file.fd, sizeHint: Int(status.st_size), "cannot read \(path)")
            let cache = try ExactSizesCache(decoding: bytes)
            guard cache.filesystem == uuid else { return .unusable("\(path) holds the trees of \(cache.filesystem)") }
            return .found(cache)
        } catch let damage as ExactSizesCacheDamage {
            return .unusable("\(path): \(damage)")
        } catch {
            return .unusable("\(error)")
        }
    }

    /// Replaces the cache of its filesystem with `cache`.
    func save(_ cache: ExactSizesCache) throws {
        try save(filesystem: cache.filesystem, encoded: cache.encoded())
    }

    /// Replaces the cache of `filesystem` with the file `bytes` (`ExactSizesCache`'s encoding).
    func save(filesystem: String, encoded bytes: [UInt8]) throws {
        guard let name = Self.fileName(filesystem) else { return }
        let path = directory + "/" + name
        let dir = try openOrMakeDirectory()
        if let problem = Self.notRootsOnly(dir.fd) {
            throw RuntimeError("cannot write \(path): \(directory) \(problem)")
        }
        // No fsync: a file a crash leaves short or empty fails its checksum and is rebuilt.
        try AtomicFile.replace(name, in: dir, path: path, with: bytes, mode: 0o600, sync: false)
    }

    private func openOrMakeDirectory() throws(SystemCallError) -> FileDescriptor {
        do {
            return try openDirectory()
        } catch {
            guard error.errno == ENOENT else { throw error }
        }
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
            throw SystemCallError("cannot make \(directory)", call: "mkdir", errno: errno)
        }
        return try openDirectory()
    }

    private func openDirectory() throws(SystemCallError) -> FileDescriptor {
        try FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, "cannot open \(directory)")
    }

    /// Why the file or directory open as `fd` is not root's alone, or nil when it is:
    /// a cache another user can write could lie about sizes.
    private static func notRootsOnly(_ fd: Int32) -> String? {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return "cannot be examined" }
        if status.st_uid != 0 { return "is not owned by root" }
        if status.st_mode & 0o022 != 0 { return "is writable by others than root" }
        return nil
    }

    /// The file's name: the UUID, when it is one (hex digits and dashes only).
    static func fileName(_ uuid: String) -> String? {
        guard !uuid.isEmpty, uuid.utf8.count <= 64,
            uuid.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) })
        else { return nil }
        return uuid
    }
}
