import CarveCore
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
    /// With `keepingHighestNumber` (snapper's UNIQUE_NUMBERS), the directory of the
    /// highest-numbered snapshot is emptied but kept, as snapper's own deletion keeps
    /// it: snapper gives the next snapshot a number above every directory there.
    static func remove(_ path: String, keepingHighestNumber: Bool = false) throws -> String? {
        var own = stat()
        guard ByteText.withCString(path, { lstat($0, &own) }) == 0 else {
            if errno == ENOENT { return nil }
            throw SystemCallError("cannot remove snapshot metadata \(path)", call: "lstat", errno: errno)
        }
        let parent = PathText.parent(of: path)
        var above = stat()
        guard ByteText.withCString(parent, { lstat($0, &above) }) == 0 else {
            throw SystemCallError("cannot remove snapshot metadata \(path)", call: "lstat", errno: errno)
        }
        // The directory itself must be a plain directory inside its parent's subvolume.
        guard (own.st_mode & S_IFMT) == S_IFDIR, own.st_dev == above.st_dev, path.hasPrefix("/"),
            !path.split(separator: "/").contains("..")
        else { throw RuntimeError("not removing snapshot metadata \(path): it is not a plain directory") }
        guard try holdsOnlyPlainFiles(path, device: own.st_dev) else { return nil }
        try removeTree(path, keepingDirectory: keepingHighestNumber && isHighestNumber(path, parent: parent))
        return path
    }

    /// The name a metadata directory takes once only carve's marker is left in it.
    /// A kill between the marker's unlink and the rmdir then leaves a name that is
    /// carve's alone (snapper reads numbers, timeshift dates) and that the next run's
    /// sweep finishes, not an empty `N/` that nothing would recognise.
    static let retiredPrefix = ".carve-deleted-"

    /// The manager's own name inside a retired name (`7` of `.carve-deleted-7`).
    static func retiredOriginal(_ name: String) -> Substring? {
        name.hasPrefix(retiredPrefix) ? name.dropFirst(retiredPrefix.count) : nil
    }

    /// True when the open `directory` holds nothing but, at most, carve's marker.
    static func holdsAtMostTheMarker(_ directory: FileDescriptor, _ path: String) -> Bool {
        guard let inside = try? DirectoryAccess.entryNames(directory, path) else { return false }
        return inside.allSatisfy { DirectoryAccess.text($0) == interruptedDeletionMarkerName }
    }

    /// Removes a retired directory found by the sweep, checked again first: it must
    /// still hold nothing but the marker.
    static func finishRetired(_ path: String) throws -> Bool {
        guard let opened = try DirectoryAccess.openIfPresent(path, "cannot open \(path)") else { return true }
        try opened.closeAfter { opened in
            guard holdsAtMostTheMarker(opened, path) else {
                throw RuntimeError("not removing \(path): it holds more than carve's marker")
            }
            try removeMarker(in: opened, path, thenDirectory: path)
        }
        return true
    }

    /// The marker of the open directory `opened`, then the directory, now at `directory`
    /// (nil: it stays, emptied).
    private static func removeMarker(in opened: FileDescriptor, _ path: String, thenDirectory directory: String?) throws
    {
        guard unlinkat(opened.fd, interruptedDeletionMarkerName, 0) == 0 || errno == ENOENT else {
            throw SystemCallError("cannot remove snapshot metadata \(path)", call: "unlinkat", errno: errno)
        }
        guard let directory, ByteText.withCString(directory, { rmdir($0) }) != 0 else { return }
        throw SystemCallError("cannot remove snapshot metadata \(path)", call: "rmdir", errno: errno)
    }

    /// True when `path` ends in a number and no snapshot beside it has a higher one:
    /// snapper compares with its snapshots (directories holding an info.xml), so an
    /// emptied directory kept earlier does not count.
    private static func isHighestNumber(_ path: String, parent: String) throws -> Bool {
        guard let number = snapperNumber(PathText.lastComponent(of: path)) else { return false }
        return try DirectoryAccess.open(parent, "cannot read \(parent)").closeAfter { directory in
            for name in try DirectoryAccess.entryNames(directory, parent) {
                guard let other = snapperNumber(DirectoryAccess.text(name)), other > number else { continue }
                var info = stat()
                let infoXML = Array(name.dropLast()) + Array("/info.xml".utf8CString)
                if fstatat(directory.fd, infoXML, &info, AT_SYMLINK_NOFOLLOW) == 0 { return false }
            }
            return true
        }
    }

    /// A name of digits only, as snapper's number_entries filter takes them.
    static func snapperNumber(_ name: some StringProtocol) -> UInt64? {
        guard !name.isEmpty, name.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return UInt64(name)
    }

    /// Removes `path` and all below it as `rm -r` does: each entry relative to its
    /// opened directory and never through a symlink, with the name's exact bytes.
    /// carve's deletion marker goes last, so a kill part-way leaves it beside what is
    /// left, for the next run to finish (InterruptedDeletionSweep.swift).
    private static func removeTree(_ path: String, keepingDirectory: Bool) throws {
        try DirectoryAccess.open(path, "cannot remove snapshot metadata \(path)").closeAfter { opened in
            try removeContents(of: opened, path: path, keeping: interruptedDeletionMarkerName)
            guard !keepingDirectory else { return try removeMarker(in: opened, path, thenDirectory: nil) }
            // Should the retired name be taken (a leftover that holds more than the
            // marker), the directory goes where it is, as before.
            let retired = PathText.parent(of: path) + "/" + retiredPrefix + PathText.lastComponent(of: path)
            let renamed =
                ByteText.withCString(path, { from in ByteText.withCString(retired) { rename(from, $0) } }) == 0
            try removeMarker(in: opened, path, thenDirectory: renamed ? retired : path)
        }
    }

    /// Empties the open directory `opened`.
    private static func removeContents(of opened: FileDescriptor, path: String, keeping kept: String? = nil) throws {
        let fd = opened.fd
        let keptName = kept.map { ByteText.bytes(of: $0).map { CChar(bitPattern: $0) } + [0] }
        for name in try DirectoryAccess.entryNames(opened, path) where name != keptName {
            let child = path + "/" + DirectoryAccess.text(name)
            var info = stat()
            guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                if errno == ENOENT { continue }
                throw SystemCallError("cannot remove snapshot metadata \(child)", call: "fstatat", errno: errno)
            }
            let isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
            if isDirectory {
                let inner = try DirectoryAccess.open(
                    entry: name, in: opened, "cannot remove snapshot metadata \(child)")
                try inner.closeAfter { try removeContents(of: $0, path: child) }
            }
            guard unlinkat(fd, name, isDirectory ? AT_REMOVEDIR : 0) == 0 || errno == ENOENT else {
                throw SystemCallError("cannot remove snapshot metadata \(child)", call: "unlinkat", errno: errno)
            }
        }
    }

    /// True when nothing below `path` is on another device: no subvolume (each has
    /// its own device number) and no mount is left inside.
    private static func holdsOnlyPlainFiles(_ path: String, device: dev_t) throws -> Bool {
        let directory = try FileDescriptor.open(path, O_RDONLY | O_DIRECTORY, "cannot read snapshot metadata \(path)")
        for name in try DirectoryAccess.entryNames(consuming: directory, path).map(DirectoryAccess.text) {
            let child = path + "/" + name
            var info = stat()
            guard ByteText.withCString(child, { lstat($0, &info) }) == 0 else {
                if errno == ENOENT { continue }
                throw SystemCallError("cannot read snapshot metadata \(child)", call: "lstat", errno: errno)
            }
            if info.st_dev != device { return false }
            if (info.st_mode & S_IFMT) == S_IFDIR, try !holdsOnlyPlainFiles(child, device: device) { return false }
        }
        return true
    }
}
