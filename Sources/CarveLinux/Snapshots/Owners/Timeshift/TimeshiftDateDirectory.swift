import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// One timeshift `snapshots/DATE` directory, looked at through open directories:
/// `info.json`, the subvolumes `@`, `@home` (and any other `@…`), and carve's marker.
enum TimeshiftDateDirectory {
    static let marker = interruptedDeletionMarkerName

    /// Whether DATE holds the marker (a regular file) and which `@…` names it holds,
    /// whatever they are (a subvolume, a directory, a symlink: any doubt counts as
    /// present); nil when DATE is gone.
    static func state(of path: String) throws -> (marked: Bool, remaining: [String])? {
        guard let directory = try DirectoryAccess.openIfPresent(path, "cannot look at \(path)") else { return nil }
        return try directory.closeAfter { try state(of: $0, path) }
    }

    private static func state(
        of directory: FileDescriptor, _ path: String
    ) throws -> (
        marked: Bool, remaining: [String]
    ) {
        var info = stat()
        let marked =
            fstatat(directory.fd, marker, &info, AT_SYMLINK_NOFOLLOW) == 0 && (info.st_mode & S_IFMT) == S_IFREG
        let remaining = try DirectoryAccess.entryNames(directory, path)
            .filter { $0.first == CChar(UInt8(ascii: "@")) }
            .map(DirectoryAccess.text)
        return (marked, remaining.sorted())
    }

    /// A name timeshift gives a snapshot (`2026-10-20_10-00-00`): digits, '-' and '_'.
    /// Anything else is not looked into.
    static func isSnapshotName(_ name: Substring) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x5F }
    }

    /// The marked DATE directories in timeshift's `snapshots` directory `path`; none
    /// when it does not exist. A DATE that is a symlink, a subvolume or a mount, or
    /// that cannot be read, is left out: it is not timeshift's plain directory, or
    /// what it holds is in doubt.
    static func marked(in path: String, filesystem: Filesystem) throws -> [MarkedDeletionDirectory] {
        try DeletionMarkerDirectory.entries(of: path, on: filesystem, named: isSnapshotName) { child, text, retired in
            if retired != nil {
                guard ManagerMetadataRemoval.holdsAtMostTheMarker(child, path) else { return nil }
                return MarkedDeletionDirectory(timeshiftPath: path + "/" + text, remaining: [])
            }
            guard let state = try? state(of: child, path + "/" + text), state.marked else { return nil }
            return MarkedDeletionDirectory(timeshiftPath: path + "/" + text, remaining: state.remaining)
        }.sorted { $0.path < $1.path }
    }

    /// Removes a marked DATE left with no `@…`, with the checks of every metadata
    /// removal (a plain directory holding nothing on another device); false when
    /// something inside keeps it. Checked again first: the scan is a moment old.
    static func finish(_ path: String) throws -> Bool {
        guard let state = try state(of: path) else { return true }
        guard state.marked, state.remaining.isEmpty else {
            throw RuntimeError("not removing \(path): it changed since it was found (marker or @ subvolume)")
        }
        return try ManagerMetadataRemoval.remove(path) != nil
    }
}
