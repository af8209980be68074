import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// Reads a policy file as root: `RootPolicyPath`'s walk over real descriptors, each step
/// opened with `O_PATH|O_NOFOLLOW` relative to the directory before it and judged by its
/// own `fstat`, so what is checked is what is opened (no path is looked up twice).
public enum RootPolicyFile {
    /// The first `limit` bytes of the file at `path` (relative to the working directory,
    /// whose own directories are then checked too); nil when there is no such file.
    public static func read(_ path: String, limit: Int) throws -> [UInt8]? {
        let absolute = path.hasPrefix("/") ? path : Files.workingDirectory + "/" + path
        guard let found = try RootPolicyPath.resolve(absolute, with: Stepper(path: path)) else { return nil }
        // Opened again to be read, from the directory that passed: the same file, or none.
        let file = try FileDescriptor.open(
            found.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, relativeTo: found.directory, "cannot open \(path)")
        let opened = try file.status("cannot read \(path)")
        let checked = try found.file.status("cannot read \(path)")
        guard opened.st_dev == checked.st_dev, opened.st_ino == checked.st_ino else {
            throw RuntimeError("\(path) was replaced while it was read")
        }
        return try MetadataFile.read(file, path, limit: limit)
    }

    /// Each step a descriptor that only names the entry (`O_PATH`): nothing is read, no
    /// device or FIFO is opened, and a symlink is the link itself.
    struct Stepper: PathStepping {
        let path: String
        /// O_PATH, which Glibc's module spells only by its internal name.
        static let pathOnly = __O_PATH

        func root() throws -> (handle: FileDescriptor, step: PathStep) {
            let handle = try FileDescriptor.open("/", Self.pathOnly | O_DIRECTORY, "cannot open / to read \(path)")
            return (handle, try Self.step(handle, path))
        }

        func open(_ name: String, in directory: FileDescriptor) throws -> (handle: FileDescriptor, step: PathStep)? {
            do {
                let handle = try FileDescriptor.open(
                    name, Self.pathOnly | O_NOFOLLOW, relativeTo: directory, "cannot open \(directory.path)/\(name)")
                return (handle, try Self.step(handle, path))
            } catch let error as SystemCallError where error.errno == ENOENT || error.errno == ENOTDIR {
                return nil
            }
        }

        func target(of link: FileDescriptor) throws -> String {
            try link.linkTarget("cannot read the symlink \(link.path) on the way to \(path)")
        }

        static func step(_ handle: FileDescriptor, _ path: String) throws -> PathStep {
            let status = try handle.status("cannot examine \(handle.path) on the way to \(path)")
            let kind: PathStep.Kind =
                switch status.st_mode & S_IFMT {
                case S_IFDIR: .directory
                case S_IFREG: .regularFile
                case S_IFLNK: .symlink
                default: .other
                }
            return PathStep(kind, owner: status.st_uid, mode: status.st_mode & 0o7777)
        }
    }
}
