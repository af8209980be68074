import CarveCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Removes a snapshot manager's metadata directory (snapper's `.snapshots/N`,
/// timeshift's `snapshots/DATE`) once the snapshots in it are gone. The files are
/// removed, never rewritten: a crash leaves either the whole directory or none of it
/// that matters to the manager.
enum ManagerMetadataRemoval {
    /// Removes `path` and returns it; returns nil when it is already gone or still
    /// holds a subvolume or a mount (a timeshift snapshot whose @home is not deleted yet).
    static func remove(_ path: String) throws -> String? {
        var own = stat()
        guard lstat(path, &own) == 0 else {
            if errno == ENOENT { return nil }
            throw SystemCallError("cannot remove snapshot metadata \(path)", call: "lstat", errno: errno)
        }
        let parent = (path as NSString).deletingLastPathComponent
        var above = stat()
        guard lstat(parent, &above) == 0 else {
            throw SystemCallError("cannot remove snapshot metadata \(path)", call: "lstat", errno: errno)
        }
        // The directory itself must be a plain directory inside its parent's subvolume.
        guard (own.st_mode & S_IFMT) == S_IFDIR, own.st_dev == above.st_dev, path.hasPrefix("/"),
              !path.split(separator: "/").contains("..")
        else { throw RuntimeError("not removing snapshot metadata \(path): it is not a plain directory") }
        guard try holdsOnlyPlainFiles(path, device: own.st_dev) else { return nil }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw RuntimeError("cannot remove snapshot metadata \(path): \(error.localizedDescription)")
        }
        return path
    }

    /// True when nothing below `path` is on another device: no subvolume (each has
    /// its own device number) and no mount is left inside.
    private static func holdsOnlyPlainFiles(_ path: String, device: dev_t) throws -> Bool {
        guard let directory = opendir(path) else {
            throw SystemCallError("cannot read snapshot metadata \(path)", call: "opendir", errno: errno)
        }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name == "." || name == ".." { continue }
            let child = path + "/" + name
            var info = stat()
            guard lstat(child, &info) == 0 else {
                if errno == ENOENT { continue }
                throw SystemCallError("cannot read snapshot metadata \(child)", call: "lstat", errno: errno)
            }
            if info.st_dev != device { return false }
            if (info.st_mode & S_IFMT) == S_IFDIR, try !holdsOnlyPlainFiles(child, device: device) { return false }
        }
        return true
    }
}
