import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// An open file descriptor and its one owner: closed exactly once, by `close()`, at
/// the end of `closeAfter`, or when the last reference goes, never by hand elsewhere.
/// A local one stays open to the end of its scope: Swift's lexical lifetimes keep an
/// object with a deinit alive past every C call made with its `fd`. Modelled on
/// swift-system's `FileDescriptor` (`open`, `closeAfter`); a failed call throws a
/// `SystemCallError`, which keeps errno as data. One shared between threads (a
/// filesystem's root, read by the exact scan's workers) is closed by its last reference only.
final class FileDescriptor: @unchecked Sendable {
    /// The descriptor for the C calls that take one: valid while this object is open.
    let fd: Int32
    /// What was opened, for messages.
    let path: String
    private var isOpen = true

    /// Takes over `fd`, which nothing else closes.
    init(adopting fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    /// `path` opened with `flags` (and O_CLOEXEC), relative to `directory` (the working
    /// directory when nil); `context` is the error's "cannot …".
    static func open(
        _ path: String, _ flags: Int32, mode: mode_t = 0, relativeTo directory: FileDescriptor? = nil,
        _ context: @autoclosure () -> String
    ) throws(SystemCallError) -> FileDescriptor {
        let fd = ByteText.withCString(path) { openat(directory?.fd ?? AT_FDCWD, $0, flags | O_CLOEXEC, mode) }
        guard fd >= 0 else {
            throw SystemCallError(context(), call: directory == nil ? "open" : "openat", errno: errno)
        }
        return FileDescriptor(adopting: fd, path: path)
    }

    /// The entry `name` (NUL-terminated bytes, as `DirectoryAccess.entryNames` gives
    /// them) of the open `directory`, opened with `flags` (and O_CLOEXEC).
    static func open(
        entry name: [CChar], in directory: FileDescriptor, _ flags: Int32, mode: mode_t = 0,
        _ context: @autoclosure () -> String
    ) throws(SystemCallError) -> FileDescriptor {
        let fd = openat(directory.fd, name, flags | O_CLOEXEC, mode)
        guard fd >= 0 else { throw SystemCallError(context(), call: "openat", errno: errno) }
        return FileDescriptor(adopting: fd, path: directory.path + "/" + DirectoryAccess.text(name))
    }

    /// The directory at `path`, for the btrfs ioctls and libbtrfsutil's `_fd` calls.
    convenience init(directory path: String) throws(SystemCallError) {
        let fd = ByteText.withCString(path) { Glibc.open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw SystemCallError("cannot open \(path)", call: "open", errno: errno) }
        self.init(adopting: fd, path: path)
    }

    /// Runs `body` with the descriptor, then closes it, whatever `body` did.
    func closeAfter<Result>(_ body: (FileDescriptor) throws -> Result) rethrows -> Result {
        defer { close() }
        return try body(self)
    }

    /// Closes it now; later calls do nothing. close(2)'s own error is not acted on:
    /// Linux frees the descriptor whatever it answers, so a retry could close another.
    func close() {
        guard isOpen else { return }
        isOpen = false
        _ = Glibc.close(fd)
    }

    /// A directory stream over the descriptor (fdopendir), which takes it over: the
    /// stream's closedir closes it, this object no longer does (its `fd` stays usable
    /// for the `*at` calls while the stream is open). nil when it is no directory.
    func directoryStream() -> DirectoryStream? {
        guard isOpen, let stream = fdopendir(fd) else { return nil }
        isOpen = false
        return DirectoryStream(stream, fd: fd)
    }

    deinit { close() }
}

/// A directory stream (`fdopendir`) and its one owner: `closedir` runs exactly once,
/// when the last reference goes, closing the descriptor the stream took over.
final class DirectoryStream {
    private let stream: OpaquePointer
    /// The stream's descriptor, for the `*at` calls while the stream is open.
    let fd: Int32

    fileprivate init(_ stream: OpaquePointer, fd: Int32) { self.stream = stream; self.fd = fd }

    /// The next entry ("." and ".." among them); nil at the end.
    func next() -> UnsafeMutablePointer<dirent>? { readdir(stream) }

    /// Back to the first entry (a descriptor shared with a `dup` may have been read from).
    func rewind() { rewinddir(stream) }

    deinit { closedir(stream) }
}
