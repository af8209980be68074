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
        let context = "cannot write \(path)/\(marker)"
        let flags = O_WRONLY | O_CREAT | (keepingExisting ? O_EXCL : O_TRUNC) | O_NOFOLLOW
        let file: FileDescriptor
        do {
            file = try directory.closeAfter {
                try FileDescriptor.open(marker, flags, mode: 0o644, relativeTo: $0, context)
            }
        } catch let error as SystemCallError where keepingExisting && error.errno == EEXIST {
            return false
        }
        try file.closeAfter { file in try file.writeAll(Array(text.utf8), context) }
        return true
    }

    /// The marker's text up to the path it names: only its name counts, the text is for people.
    static func text(_ subvolume: Volume) -> String {
        "carve (pid \(getpid())) is deleting subvolume \(subvolume.id) \(subvolume.uuid) at "
    }

    static func removeMarker(in path: String) throws {
        guard let directory = try DirectoryAccess.openIfPresent(path, "cannot remove \(path)/\(marker)") else { return }
        guard directory.closeAfter({ unlinkat($0.fd, marker, 0) }) == 0 || errno == ENOENT else {
            throw SystemCallError("cannot remove \(path)/\(marker)", call: "unlinkat", errno: errno)
        }
    }

    /// Whether N holds the marker (a regular file) and anything named `snapshot`;
    /// nil when N is gone. Any doubt about `snapshot` counts as present.
    static func state(of path: String) throws -> (marked: Bool, snapshotPresent: Bool)? {
        guard let directory = try DirectoryAccess.openIfPresent(path, "cannot look at \(path)") else { return nil }
        return directory.closeAfter(state(of:))
    }

    private static func state(of directory: FileDescriptor) -> (marked: Bool, snapshotPresent: Bool) {
        var info = stat()
        let marked =
            fstatat(directory.fd, marker, &info, AT_SYMLINK_NOFOLLOW) == 0 && (info.st_mode & S_IFMT) == S_IFREG
        let snapshotGone = fstatat(directory.fd, "snapshot", &info, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT
        return (marked, !snapshotGone)
    }

    /// The marked numbered directories in the `.snapshots` directory `path`; none when
    /// it does not exist (see `openOnFilesystem`).
    static func marked(in path: String, config: String?, filesystem: Filesystem) throws -> [MarkedDeletionDirectory] {
        try entries(of: path, on: filesystem) { name in
            ManagerMetadataRemoval.snapperNumber(name).flatMap { Int(exactly: $0) } != nil
        } found: { child, text, retired in
            guard
                let number = ManagerMetadataRemoval.snapperNumber(retired ?? Substring(text)).flatMap({
                    Int(exactly: $0)
                })
            else { return nil }
            let state = state(of: child)
            guard retired == nil ? state.marked : ManagerMetadataRemoval.holdsAtMostTheMarker(child, path) else {
                return nil
            }
            return MarkedDeletionDirectory(
                path: path + "/" + text, config: config, number: number, snapshotPresent: state.snapshotPresent)
        }.sorted { ($0.number ?? 0) < ($1.number ?? 0) }
    }

    /// What `found` makes of each entry of the directory `path` of `filesystem` whose
    /// name (inside a retired name: its original) `named` takes and that is a plain
    /// directory on the same device (a subvolume or a mount there is not the manager's),
    /// opened; none when `path` does not exist. The entry's name comes as text, with its
    /// original when it is a retired one.
    static func entries(
        of path: String, on filesystem: Filesystem, named: (Substring) -> Bool,
        found: (FileDescriptor, String, Substring?) -> MarkedDeletionDirectory?
    ) throws -> [MarkedDeletionDirectory] {
        guard let (directory, own) = try openOnFilesystem(path, filesystem) else { return [] }
        var result: [MarkedDeletionDirectory] = []
        for name in try DirectoryAccess.entryNames(directory, path) {
            let text = DirectoryAccess.text(name)
            let retired = ManagerMetadataRemoval.retiredOriginal(text)
            guard named(retired ?? Substring(text)),
                let child = try? DirectoryAccess.open(entry: name, in: directory, "")
            else { continue }
            var info = stat()
            guard fstat(child.fd, &info) == 0, info.st_dev == own.st_dev else { continue }
            if let entry = found(child, text, retired) { result.append(entry) }
        }
        return result
    }

    /// Opens a directory to look in and its stat; nil when it does not exist. It must
    /// be a directory of `filesystem` (an fsid check, so a symlink on the way cannot
    /// lead to another btrfs).
    static func openOnFilesystem(_ path: String, _ filesystem: Filesystem) throws -> (FileDescriptor, stat)? {
        guard let directory = try DirectoryAccess.openIfPresent(path, "cannot open \(path)") else { return nil }
        var own = stat()
        let args = try BtrfsQuery.filesystemInfo(directory.fd, path: path)
        guard uuidString(args.fsid) == filesystem.uuid else {
            throw RuntimeError("\(path) is on another filesystem than \(filesystem.mountpoint): not looked at")
        }
        guard fstat(directory.fd, &own) == 0 else {
            throw SystemCallError("cannot look at \(path)", call: "fstat", errno: errno)
        }
        return (directory, own)
    }
}
