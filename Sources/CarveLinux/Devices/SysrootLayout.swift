import CarveCore
import Glibc

/// Where each block device's sysfs directory is in a dump made for `--sysroot`, found
/// as lsblk finds devices there: the whole devices in /sys/block, each disk's
/// partitions as subdirectories holding a `partition` attribute, and whatever else
/// /sys/dev/block links to. A dump need not hold /sys/class/block.
public struct SysrootLayout: Sendable {
    public struct Entry: Sendable, Hashable {
        /// The device's directory under the root.
        public var path: String
        /// For a partition: its disk's kernel name.
        public var parent: String?
    }

    /// By kernel name.
    public let entries: [String: Entry]
    /// What could not be read, one line each, for the user: the rest is listed.
    public let problems: [String]

    /// Scans the dump under `host`; an empty layout when it holds no /sys/block.
    public init(host: HostRoot) {
        var found: [String: Entry] = [:]
        var problems: [String] = []
        let block = host.path("/sys/block")
        for disk in (Files.names(in: block) ?? []).sorted() where found[disk] == nil {
            let path = "\(block)/\(disk)"
            // An entry that is not a directory (a dangling or looping link) is no device.
            guard Files.isDirectory(path) else {
                problems.append("sys/block/\(disk): not a directory (a dangling link or a symlink loop); left out")
                continue
            }
            guard SysrootLayout.hasDeviceNumber(path) else {
                problems.append("sys/block/\(disk)/dev: missing or not MAJ:MIN; left out")
                continue
            }
            found[disk] = Entry(path: path)
            for name in (Files.names(in: path) ?? []).sorted() where name.hasPrefix(disk) && found[name] == nil {
                guard Files.exists("\(path)/\(name)/partition") else { continue }
                guard SysrootLayout.hasDeviceNumber("\(path)/\(name)") else {
                    problems.append("sys/block/\(disk)/\(name)/dev: missing or not MAJ:MIN; left out")
                    continue
                }
                found[name] = Entry(path: "\(path)/\(name)", parent: disk)
            }
        }
        let numbers = host.path("/sys/dev/block")
        for number in (Files.names(in: numbers) ?? []).sorted() {
            let path = "\(numbers)/\(number)"
            guard let target = Files.linkTarget(path), Files.isDirectory(path), SysrootLayout.hasDeviceNumber(path)
            else { continue }
            let parts = target.split(separator: "/").map(String.init)
            guard let name = parts.last, found[name] == nil else { continue }
            let isPartition = Files.exists("\(path)/partition")
            found[name] = Entry(path: path, parent: isPartition && parts.count >= 2 ? parts[parts.count - 2] : nil)
        }
        entries = found
        if found.isEmpty && problems.isEmpty {
            problems.append("no block devices in sys/block or sys/dev/block")
        }
        self.problems = problems
    }

    /// Whether the directory's `dev` reads as MAJ:MIN (a truncated dump may cut it).
    static func hasDeviceNumber(_ path: String) -> Bool {
        guard let text = Files.text(path + "/dev") else { return false }
        return SysfsTree.deviceNumber(text.trimmingWhitespace) != nil
    }
}

/// Names the block devices of a `--sysroot` dump from its layout.
public struct SysrootBlockEnumerator: BlockDeviceEnumerator {
    public let layout: SysrootLayout
    public init(layout: SysrootLayout) { self.layout = layout }

    public func blockDevices() throws -> [EnumeratedDevice] {
        layout.entries.keys.sorted().map { name in
            EnumeratedDevice(
                name: name,
                node: "/dev/" + name.split(separator: "!", omittingEmptySubsequences: false).joined(separator: "/"))
        }
    }
}
