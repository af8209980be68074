import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// The calls carve makes on an open file or directory, one wrapper each: a failure
/// throws a `SystemCallError` with errno and the call's name. Names are relative to the
/// directory and never followed at their last component.
extension FileDescriptor {
    /// fstat(2): what is open (for an `O_PATH|O_NOFOLLOW` descriptor, a symlink itself).
    func status(_ context: @autoclosure () -> String) throws(SystemCallError) -> stat {
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw SystemCallError(context(), call: "fstat", errno: errno) }
        return status
    }

    /// readlinkat(2) of the symlink open as this `O_PATH|O_NOFOLLOW` descriptor.
    func linkTarget(_ context: @autoclosure () -> String) throws(SystemCallError) -> String {
        var failure: Int32 = 0
        let target = LinkText.read {
            let length = readlinkat(fd, "", $0, $1)
            if length < 0 { failure = errno }
            return length
        }
        guard let target else { throw SystemCallError(context(), call: "readlinkat", errno: failure) }
        return target
    }

    /// write(2) until every byte of `bytes` is written (a short write is continued, EINTR retried).
    func writeAll(_ bytes: [UInt8], _ context: @autoclosure () -> String) throws(SystemCallError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                throw SystemCallError(context(), call: "write", errno: written < 0 ? errno : ENOSPC)
            }
            offset += written
        }
    }

    /// fsync(2): the file's data on the disk before it is renamed into place.
    func sync(_ context: @autoclosure () -> String) throws(SystemCallError) {
        guard fsync(fd) == 0 else { throw SystemCallError(context(), call: "fsync", errno: errno) }
    }

    /// fchmod(2): the mode whatever the umask.
    func setMode(_ mode: mode_t, _ context: @autoclosure () -> String) throws(SystemCallError) {
        guard fchmod(fd, mode) == 0 else { throw SystemCallError(context(), call: "fchmod", errno: errno) }
    }

    /// mkdirat(2) of `name` in this directory; false when something is there already.
    @discardableResult
    func makeDirectory(
        _ name: String, mode: mode_t, _ context: @autoclosure () -> String
    ) throws(SystemCallError)
        -> Bool
    {
        guard ByteText.withCString(name, { mkdirat(fd, $0, mode) }) == 0 else {
            if errno == EEXIST { return false }
            throw SystemCallError(context(), call: "mkdirat", errno: errno)
        }
        return true
    }

    /// symlinkat(2): `name` in this directory, pointing to `target`.
    func makeSymlink(_ name: String, to target: String, _ context: @autoclosure () -> String) throws(SystemCallError) {
        let result = ByteText.withCString(target) { to in ByteText.withCString(name) { symlinkat(to, fd, $0) } }
        guard result == 0 else { throw SystemCallError(context(), call: "symlinkat", errno: errno) }
    }

    /// renameat(2) of `name` over `newName`, both in this directory.
    func rename(_ name: String, to newName: String, _ context: @autoclosure () -> String) throws(SystemCallError) {
        let result = ByteText.withCString(name) { from in ByteText.withCString(newName) { renameat(fd, from, fd, $0) } }
        guard result == 0 else { throw SystemCallError(context(), call: "renameat", errno: errno) }
    }

    /// unlinkat(2) of the file or symlink `name` in this directory; false when there was none.
    @discardableResult
    func removeEntry(_ name: String, _ context: @autoclosure () -> String) throws(SystemCallError) -> Bool {
        guard ByteText.withCString(name, { unlinkat(fd, $0, 0) }) == 0 else {
            if errno == ENOENT { return false }
            throw SystemCallError(context(), call: "unlinkat", errno: errno)
        }
        return true
    }
}
