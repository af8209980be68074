import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// Reads a manager's metadata file (info.xml, info.json, a snapper config) without
/// trusting it: no symlink followed at the last component, no FIFO or device
/// opened for reading (O_NONBLOCK, then a regular-file check), and at most `limit`
/// bytes read, so a huge or hostile file cannot hang or exhaust carve.
public enum MetadataFile {
    /// The first `limit` bytes, or nil when the file does not exist. A file the admin
    /// names (`followingSymlinks`) may be a symlink; one carve finds may not.
    public static func read(_ path: String, limit: Int, followingSymlinks: Bool = false) throws -> [UInt8]? {
        let flags = O_RDONLY | O_NONBLOCK | (followingSymlinks ? 0 : O_NOFOLLOW)
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(path, flags, "cannot open \(path)")
        } catch {
            if error.errno == ENOENT || error.errno == ENOTDIR { return nil }
            throw error
        }
        return try read(file, path, limit: limit)
    }

    /// The first `limit` bytes of the open `file`, when it is a regular file.
    static func read(_ file: FileDescriptor, _ path: String, limit: Int) throws -> [UInt8] {
        let fd = file.fd
        guard try file.status("cannot read \(path)").st_mode & S_IFMT == S_IFREG else {
            throw RuntimeError("\(path) is not a regular file")
        }
        var data = [UInt8](repeating: 0, count: limit)
        var total = 0
        while total < limit {
            let got = data.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + total, limit - total) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw SystemCallError("cannot read \(path)", call: "read", errno: errno) }
            if got == 0 { break }
            total += got
        }
        data.removeSubrange(total...)
        return data
    }
}

/// snapper's configs from `/etc` under the host root.
struct SnapperConfigFiles {
    var host: HostRoot

    /// Every readable config, and a warning for each one that is not.
    func load() -> (configs: [SnapperConfig], warnings: [String]) {
        var names: [String] = []
        for path in host.snapperSysconfig {
            guard let data = try? MetadataFile.read(path, limit: SnapperConfig.maximumSize),
                let listed = try? SnapperConfig.configNames(fromSysconfig: ByteText.decode(data))
            else { continue }
            names += listed.filter { !names.contains($0) }
        }
        let directory = host.snapperConfigs
        let files = Files.names(in: directory) ?? []
        names += files.sorted().filter { !names.contains($0) && !$0.hasPrefix(".") }
        var configs: [SnapperConfig] = [], warnings: [String] = []
        for name in names where !name.contains("/") {
            let path = directory + "/" + name
            do {
                guard let data = try MetadataFile.read(path, limit: SnapperConfig.maximumSize + 1) else {
                    warnings.append("snapper config \(name) is listed in SNAPPER_CONFIGS but \(path) does not exist")
                    continue
                }
                guard data.count <= SnapperConfig.maximumSize else {
                    throw RuntimeError("larger than \(SnapperConfig.maximumSize) bytes")
                }
                configs.append(try SnapperConfig.parse(name: name, text: ByteText.decode(data)))
            } catch {
                warnings.append("cannot use snapper config \(path): \(error)")
            }
        }
        return (configs, warnings)
    }
}
