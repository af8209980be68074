import CarveCore
import Glibc

/// The few whole-file and directory questions carve asks outside the deletion
/// code (which opens everything relative to a directory descriptor): read a
/// small file, list a directory, ask what is at a path. Bytes of names are kept.
public enum Files {
    /// Every byte of the file at `path` (a /proc or /etc file); nil when it cannot be read.
    public static func contents(_ path: String) -> [UInt8]? {
        guard let file = try? FileDescriptor.open(path, O_RDONLY, "cannot read \(path)") else { return nil }
        return try? contents(of: file.fd, "cannot read \(path)")
    }

    /// The file at `path` as text (UTF-8, anything else replaced); nil when it cannot be read.
    public static func text(_ path: String) -> String? {
        contents(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Every byte of an open file from its start, whatever its offset (pread): a
    /// /proc file re-read through the same descriptor, a child's output file.
    /// `sizeHint`: the size fstat(2) gave, read straight into an array of that size
    /// (a 26 MB cache read in 64 KiB pieces was copied twice more as the array grew).
    static func contents(of fd: Int32, sizeHint: Int = 0, _ context: @autoclosure () -> String) throws -> [UInt8] {
        var failure: Int32 = 0
        // Made only with room: an array made with none writes its count into the one
        // empty array every thread shares (ThreadSanitizer saw two runs race on it).
        var bytes: [UInt8] = []
        if sizeHint > 0 {
            bytes = [UInt8](unsafeUninitializedCapacity: sizeHint) { buffer, count in
                while count < buffer.count, let base = buffer.baseAddress {
                    let got = pread(fd, base + count, buffer.count - count, off_t(count))
                    if got < 0 && errno == EINTR { continue }
                    if got <= 0 {
                        failure = got < 0 ? errno : 0
                        return
                    }
                    count += got
                }
            }
        }
        if failure != 0 { throw SystemCallError(context(), call: "pread", errno: failure) }
        // Whatever lies past the hint: a file that grew since, or one read with none.
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var offset = off_t(bytes.count)
        while true {
            let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw SystemCallError(context(), call: "pread", errno: errno) }
            if got == 0 { return bytes }
            bytes += buffer[..<got]
            offset += off_t(got)
        }
    }

    /// The names in the directory at `path`, symlinks followed ("." and ".." left out,
    /// unsorted); nil when it cannot be read.
    public static func names(in path: String) -> [String]? {
        guard let directory = try? FileDescriptor.open(path, O_RDONLY | O_DIRECTORY, "cannot read \(path)") else {
            return nil
        }
        return (try? DirectoryAccess.entryNames(consuming: directory, path))?.map(DirectoryAccess.text)
    }

    /// getcwd(3), its bytes kept; "/" in the unlikely case it cannot be told.
    public static var workingDirectory: String {
        guard let path = getcwd(nil, 0) else { return "/" }
        defer { free(path) }
        return ByteText.decode(cString: path)
    }

    /// Where the symlink at `path` points (readlink(2)); nil when it is not a link.
    public static func linkTarget(_ path: String) -> String? {
        ByteText.withCString(path) { path in LinkText.read { readlink(path, $0, $1) } }
    }

    public static func exists(_ path: String) -> Bool {
        ByteText.withCString(path) { access($0, F_OK) } == 0
    }

    /// True for a directory or a symlink to one.
    public static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return ByteText.withCString(path) { stat($0, &status) } == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

    public static func isExecutable(_ path: String) -> Bool {
        var status = stat()
        return ByteText.withCString(path) { stat($0, &status) } == 0 && status.st_mode & S_IFMT == S_IFREG
            && ByteText.withCString(path) { access($0, X_OK) } == 0
    }
}
