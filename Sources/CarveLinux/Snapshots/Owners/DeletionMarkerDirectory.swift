import CBtrfsUtil
import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// A directory that carries the deletion marker: snapper's `.snapshots/N` or timeshift's
/// `snapshots/DATE`, looked at through open directories.
enum DeletionMarkerDirectory {
    static let marker = interruptedDeletionMarkerName

    /// Creates or rewrites the marker. No fsync: a kill leaves the page cache, and
    /// btrfs commits its transactions whole and in order, so after a power cut the
    /// subvolume's deletion, which comes after the marker's creation, is not on disk
    /// without the marker's name. Only the name counts; its text is for people. The
    /// two fsyncs made deleting 200 snapper snapshots seven times slower.
    /// With `keepingExisting`, a marker already there is left as it is and false returned.
    @discardableResult
    static func writeMarker(in path: String, text: String, keepingExisting: Bool = false) throws -> Bool {
        let directory = try DirectoryAccess.open(path, "cannot mark \(path) as being deleted")
        defer { close(directory) }
        let context = "cannot write \(path)/\(marker)"
        let flags = keepingExisting ? O_EXCL : O_TRUNC
        let fd = openat(directory, marker, O_WRONLY | O_CREAT | flags | O_NOFOLLOW | O_CLOEXEC, 0o644)
        if fd < 0, keepingExisting, errno == EEXIST { return false }
        guard fd >= 0 else { throw SystemCallError(context, call: "openat", errno: errno) }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { throw SystemCallError(context, call: "write", errno: result < 0 ? errno : EIO) }
            written += result
        }
        return true
    }

    /// The marker's text up to the path it names: only its name counts, the text is for people.
    static func text(_ subvolume: Volume) -> String {
        "carve (pid \(getpid())) is deleting subvolume \(subvolume.id) \(subvolume.uuid) at "
    }

    static func removeMarker(in path: String) throws {
        guard let directory = try DirectoryAccess.openIfPresent(path, "cannot remove \(path)/\(marker)") else { return }
        defer { close(directory) }
        guard unlinkat(directory, marker, 0) == 0 || errno == ENOENT else {
            throw SystemCallError("cannot remove \(path)/\(marker)", call: "unlinkat", errno: errno)
        }
    }

    /// Whether N holds the marker (a regular file) and anything named `snapshot`;
    /// nil when N is gone. Any doubt about `snapshot` counts as present.
    static func state(of path: String) throws -> (marked: Bool, snapshotPresent: Bool)? {
        guard let directory = try DirectoryAccess.openIfPresent(path, "cannot look at \(path)") else { return nil }
        defer { close(directory) }
        return state(of: directory)
    }

    private static func state(of directory: Int32) -> (marked: Bool, snapshotPresent: Bool) {
        var info = stat()
        let marked = fstatat(directory, marker, &info, AT_SYMLINK_NOFOLLOW) == 0 && (info.st_mode & S_IFMT) == S_IFREG
        let snapshotGone = fstatat(directory, "snapshot", &info, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT
        return (marked, !snapshotGone)
    }

    /// The marked numbered directories in the `.snapshots` directory `path`; none when
    /// it does not exist (see `openOnFilesystem`).
    static func marked(in path: String, config: String?, filesystem: Filesystem) throws -> [MarkedDeletionDirectory] {
        guard let (directory, own) = try openOnFilesystem(path, filesystem) else { return [] }
        defer { close(directory) }
        var found: [MarkedDeletionDirectory] = []
        for name in try DirectoryAccess.entryNames(directory, path) {
            let text = DirectoryAccess.text(name)
            let retired = ManagerMetadataRemoval.retiredOriginal(text)
            guard
                let number = ManagerMetadataRemoval.snapperNumber(retired ?? Substring(text)).flatMap({
                    Int(exactly: $0)
                })
            else { continue }
            guard let child = try? DirectoryAccess.open(entry: name, in: directory, "") else { continue }
            defer { close(child) }
            var info = stat()
            // A subvolume or a mount at N is not snapper's plain directory.
            guard fstat(child, &info) == 0, info.st_dev == own.st_dev else { continue }
            let state = state(of: child)
            guard retired == nil ? state.marked : ManagerMetadataRemoval.holdsAtMostTheMarker(child, path) else {
                continue
            }
            found.append(
                MarkedDeletionDirectory(
                    path: path + "/" + text, config: config, number: number, snapshotPresent: state.snapshotPresent))
        }
        return found.sorted { ($0.number ?? 0) < ($1.number ?? 0) }
    }

    /// Opens a directory to look in and its stat; nil when it does not exist. It must
    /// be a directory of `filesystem` (an fsid check, so a symlink on the way cannot
    /// lead to another btrfs).
    static func openOnFilesystem(_ path: String, _ filesystem: Filesystem) throws -> (Int32, stat)? {
        guard let directory = try DirectoryAccess.openIfPresent(path, "cannot open \(path)") else { return nil }
        var own = stat()
        do {
            let args = try BtrfsQuery.filesystemInfo(directory, path: path)
            guard uuidString(args.fsid) == filesystem.uuid else {
                throw RuntimeError("\(path) is on another filesystem than \(filesystem.mountpoint): not looked at")
            }
            guard fstat(directory, &own) == 0 else {
                throw SystemCallError("cannot look at \(path)", call: "fstat", errno: errno)
            }
        } catch {
            close(directory)
            throw error
        }
        return (directory, own)
    }
}
