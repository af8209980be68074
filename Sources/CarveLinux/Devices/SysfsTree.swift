import CarveCore
import Foundation
import Glibc

/// Block device attributes read from sysfs under a root prefix: "/" on the
/// machine, a fixture directory in tests (laid out as /sys/class/block/NAME,
/// with partitions as symlinks into their disk's directory, as the kernel does).
public struct SysfsTree: DeviceAttributeSource {
    public let root: String
    public init(root: String = "/") { self.root = root.hasSuffix("/") ? String(root.dropLast()) : root }

    public func attributes(of name: String) throws -> SysfsDevice? {
        let link = "\(root)/sys/class/block/\(name)"
        guard let dev = read(link, "dev"), let number = SysfsTree.deviceNumber(dev) else { return nil }
        let isPartition = exists(link, "partition")
        // A partition's directory sits inside its disk's: /sys/devices/.../sda/sda1.
        // Partitions have no queue/ or removable of their own: their disk's apply.
        let diskDirectory = isPartition ? SysfsTree.resolved(link).map { String($0[..<($0.lastIndex(of: "/") ?? $0.endIndex)]) } : nil
        let disk = diskDirectory ?? link
        var device = SysfsDevice(
            number: number,
            size: (number64(link, "size") ?? 0) * 512,
            logicalBlockSize: number64(disk, "queue/logical_block_size") ?? 512,
            readOnly: number64(link, "ro") == 1,
            removable: number64(disk, "removable") == 1,
            rotational: number64(disk, "queue/rotational") == 1,
            parent: diskDirectory.flatMap { $0.split(separator: "/").last.map(String.init) },
            start: isPartition ? number64(link, "start") : nil,
            holders: entries(link, "holders"),
            slaves: entries(link, "slaves"),
            hasBackingFile: exists(link, "loop/backing_file"),
            dmUUID: read(link, "dm/uuid"),
            dmName: read(link, "dm/name"),
            model: read(disk, "device/model"),
            serial: read(disk, "device/serial")
        )
        device.partitionNumber = isPartition ? read(link, "partition").flatMap { Int($0) } : nil
        device.mdLevel = read(link, "md/level")
        return device
    }

    /// The path with every symlink resolved (`realPath`: Foundation's walk costs
    /// dozens of system calls per device).
    static func resolved(_ path: String) -> String? { realPath(path) }

    /// "8:1" as sysfs writes it in `dev`.
    static func deviceNumber(_ text: String) -> DeviceNumber? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let major = UInt32(parts[0]), let minor = UInt32(parts[1]) else { return nil }
        return DeviceNumber(major: major, minor: minor)
    }

    /// An attribute's text without surrounding whitespace; nil when absent, unreadable or empty.
    /// Read with read(2), not FileManager.contents: that leaks its 4 KiB buffer for every
    /// file that reads empty (sysfs has such, a disk's `events` for one), found by LeakSanitizer.
    private func read(_ directory: String, _ attribute: String) -> String? {
        let fd = open("\(directory)/\(attribute)", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // A sysfs attribute is at most one page; fixture files are smaller still.
        var bytes = [UInt8](repeating: 0, count: 4096)
        var total = 0
        while total < bytes.count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + total, $0.count - total) }
            if got < 0 && errno == EINTR { continue }
            if got == 0 { break }
            guard got > 0 else { return nil }
            total += got
        }
        // Vendor strings (device/model) are not always UTF-8: keep their bytes.
        let text = ByteText.decode(bytes[..<total]).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    private func number64(_ directory: String, _ attribute: String) -> UInt64? {
        read(directory, attribute).flatMap { UInt64($0) }
    }

    private func exists(_ directory: String, _ attribute: String) -> Bool {
        access("\(directory)/\(attribute)", F_OK) == 0
    }

    private func entries(_ directory: String, _ subdirectory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "\(directory)/\(subdirectory)")) ?? []).sorted()
    }
}
