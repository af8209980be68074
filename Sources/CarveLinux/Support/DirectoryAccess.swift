import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// Directories as the deletion code opens and reads them: never through a symlink
/// at the last component, and names kept as bytes, as the `*at` calls take them.
enum DirectoryAccess {
    /// `path` opened as a directory, relative to `base` (the working directory when nil).
    static func open(
        _ path: String, at base: FileDescriptor? = nil, _ context: @autoclosure () -> String
    ) throws
        -> FileDescriptor
    {
        try FileDescriptor.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, relativeTo: base, context())
    }

    /// The entry `name` (bytes from `entryNames`) of the open `directory`, as a directory.
    static func open(
        entry name: [CChar], in directory: FileDescriptor, _ context: @autoclosure () -> String
    ) throws
        -> FileDescriptor
    {
        try FileDescriptor.open(entry: name, in: directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, context())
    }

    /// The same, or nil when there is nothing at `path` (ENOENT).
    static func openIfPresent(
        _ path: String, at base: FileDescriptor? = nil, _ context: @autoclosure () -> String
    )
        throws -> FileDescriptor?
    {
        do {
            return try open(path, at: base, context())
        } catch let error as SystemCallError where error.errno == ENOENT {
            return nil
        }
    }

    /// The names in an open directory, each NUL-terminated as the C calls take them,
    /// "." and ".." left out; read in full before anything is changed.
    static func entryNames(_ directory: FileDescriptor, _ path: String) throws -> [[CChar]] {
        let copy = dup(directory.fd)
        guard copy >= 0 else { throw SystemCallError("cannot read \(path)", call: "dup", errno: errno) }
        // The copy shares the original's offset, which an earlier read may have moved.
        return try entryNames(consuming: FileDescriptor(adopting: copy, path: path), path, rewinding: true)
    }

    /// The same for a directory just opened, which the stream takes over and closes:
    /// no copy, no rewind.
    static func entryNames(
        consuming directory: FileDescriptor, _ path: String, rewinding: Bool = false
    ) throws
        -> [[CChar]]
    {
        guard let stream = directory.directoryStream() else {
            throw SystemCallError("cannot read \(path)", call: "fdopendir", errno: errno)
        }
        if rewinding { stream.rewind() }
        return names(in: stream)
    }

    private static func names(in stream: DirectoryStream) -> [[CChar]] {
        var names: [[CChar]] = []
        while let entry = stream.next() {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.bindMemory(to: CChar.self).prefix { $0 != 0 }) + [0]
            }
            if name == [46, 0] || name == [46, 46, 0] { continue }
            names.append(name)
        }
        return names
    }

    /// A name from `entryNames` as text, for messages and number checks.
    static func text(_ name: [CChar]) -> String {
        ByteText.decode(name.dropLast().map { UInt8(bitPattern: $0) })
    }
}
