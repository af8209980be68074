import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// Replaces a file as a whole, so a reader (node_exporter's scrape, a second carve) sees
/// the old file or the new one, never half of one: the bytes go to a temporary name that
/// nothing else has (`O_CREAT|O_EXCL|O_NOFOLLOW` beside the file, hidden, ending in
/// `.tmp` so that no `*.prom` reader takes it), which is renamed over the file. Nothing is
/// ever written through a symlink: the temporary is new, and rename(2) replaces a symlink
/// at the file's name with the file, leaving what it pointed to alone. A failure removes
/// the temporary.
public enum AtomicFile {
    /// Replaces the file at `path` with `bytes`, mode `mode` whatever the umask, its data
    /// synced to the disk before the rename (a crash leaves the old file or the new one).
    public static func replace(_ path: String, with bytes: [UInt8], mode: mode_t = 0o644) throws {
        let name = PathText.lastComponent(of: path)
        guard !name.isEmpty, name != "/", name != ".", name != ".." else {
            throw UsageError("\(path): not a file name")
        }
        let parent = PathText.parent(of: path)
        let directory = try FileDescriptor.open(
            parent.isEmpty ? "." : parent, O_RDONLY | O_DIRECTORY, "cannot write \(path)")
        try replace(name, in: directory, path: path, with: bytes, mode: mode, sync: true)
    }

    /// Replaces `name` in the open `directory` (`path` names it in messages). Without
    /// `sync`, for a file that checks itself (a checksum) and is rebuilt when a crash cut it.
    static func replace(
        _ name: String, in directory: FileDescriptor, path: String, with bytes: [UInt8], mode: mode_t, sync: Bool
    ) throws {
        let context = "cannot write \(path)"
        let (temporary, file) = try makeTemporary(for: name, in: directory, context)
        do {
            try file.closeAfter { file in
                try file.writeAll(bytes, context)
                try file.setMode(mode, context)
                if sync { try file.sync(context) }
            }
            try directory.rename(temporary, to: name, context)
        } catch {
            _ = try? directory.removeEntry(temporary, context)
            throw error
        }
    }

    /// A new file under a name nobody else has: a name taken (another carve, or a planted
    /// entry) is passed over, never opened.
    private static func makeTemporary(
        for name: String, in directory: FileDescriptor, _ context: String
    ) throws(SystemCallError) -> (String, FileDescriptor) {
        var attempt = 0
        while true {
            let temporary = ".\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
            do {
                let file = try FileDescriptor.open(
                    temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600, relativeTo: directory, context)
                return (temporary, file)
            } catch  where error.errno == EEXIST && attempt < 16 {
                attempt += 1
            }
        }
    }
}
