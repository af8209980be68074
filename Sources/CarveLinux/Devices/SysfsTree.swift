import CarveCore
import Glibc

/// Block device attributes read from sysfs under the host root: "/" on the
/// machine, a fixture directory in tests (laid out as /sys/class/block/NAME,
/// with partitions as symlinks into their disk's directory, as the kernel does).
public struct SysfsTree: DeviceAttributeSource {
    public let host: HostRoot
    private let diskCache = OnceCache<String, DiskAttributes>()
    public init(host: HostRoot = .system) { self.host = host }

    public func attributes(of name: String) throws -> SysfsDevice? {
        let link = "\(host.blockClass)/\(name)"
        guard let dev = read(link, "dev"), let number = SysfsTree.deviceNumber(dev) else { return nil }
        let partitionNumber = read(link, "partition").flatMap { Int($0) }
        let isPartition = partitionNumber != nil
        // A partition's directory sits inside its disk's: /sys/devices/.../sda/sda1.
        // Partitions have no queue/ or removable of their own: their disk's apply.
        let parent = isPartition ? SysfsTree.parentName(link) : nil
        let disk = diskAttributes(parent.map { "\(host.blockClass)/\($0)" } ?? link)
        // Only a loop, dm or md device has the attributes of its kind: skip the failed opens elsewhere.
        let isLoop = !isPartition && name.hasPrefix("loop"), isDM = name.hasPrefix("dm-"), isMD = name.hasPrefix("md")
        var device = SysfsDevice(
            number: number,
            size: (number64(link, "size") ?? 0) * 512,
            logicalBlockSize: disk.logicalBlockSize,
            readOnly: number64(link, "ro") == 1,
            removable: disk.removable,
            rotational: disk.rotational,
            parent: parent,
            start: isPartition ? number64(link, "start") : nil,
            holders: entries(link, "holders"),
            slaves: entries(link, "slaves"),
            hasBackingFile: isLoop && exists(link, "loop/backing_file"),
            dmUUID: isDM ? read(link, "dm/uuid") : nil,
            dmName: isDM ? read(link, "dm/name") : nil,
            model: disk.model,
            serial: disk.serial
        )
        device.partitionNumber = partitionNumber
        device.mdLevel = isMD ? read(link, "md/level") : nil
        return device
    }

    /// What a disk's partitions share with it, read once per disk.
    struct DiskAttributes: Sendable {
        var logicalBlockSize: UInt64, removable: Bool, rotational: Bool, model: String?, serial: String?
    }

    private func diskAttributes(_ directory: String) -> DiskAttributes {
        diskCache.value(for: directory) {
            DiskAttributes(
                logicalBlockSize: number64(directory, "queue/logical_block_size") ?? 512,
                removable: number64(directory, "removable") == 1,
                rotational: number64(directory, "queue/rotational") == 1,
                model: read(directory, "device/model"), serial: read(directory, "device/serial"))
        }
    }

    /// The disk of a partition: its class link points into the disk's directory
    /// (../../devices/.../sda/sda1), so one readlink names it.
    static func parentName(_ link: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = ByteText.withCString(link) { readlink($0, &buffer, buffer.count - 1) }
        guard count > 0 else { return nil }
        let target = ByteText.decode(buffer[..<count].map { UInt8(bitPattern: $0) })
        let parts = target.split(separator: "/")
        return parts.count >= 2 ? String(parts[parts.count - 2]) : nil
    }

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
        let text = ByteText.decode(bytes[..<total]).trimmingWhitespace
        return text.isEmpty ? nil : text
    }

    private func number64(_ directory: String, _ attribute: String) -> UInt64? {
        read(directory, attribute).flatMap { UInt64($0) }
    }

    private func exists(_ directory: String, _ attribute: String) -> Bool {
        access("\(directory)/\(attribute)", F_OK) == 0
    }

    private func entries(_ directory: String, _ subdirectory: String) -> [String] {
        let path = "\(directory)/\(subdirectory)"
        guard let fd = try? DirectoryAccess.openIfPresent(path, "cannot read \(path)") else { return [] }
        defer { close(fd) }
        return ((try? DirectoryAccess.entryNames(fd, path)) ?? []).map(DirectoryAccess.text).sorted()
    }
}
