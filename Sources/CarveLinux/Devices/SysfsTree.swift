import CarveCore
import Glibc

/// Block device attributes read from sysfs under the host root: "/" on the
/// machine, a fixture directory in tests (laid out as /sys/class/block/NAME,
/// with partitions as symlinks into their disk's directory, as the kernel does).
/// Each device's directory is opened once and its attributes read relative to it,
/// as util-linux's ul_path does: one name to look up per attribute, not five.
public struct SysfsTree: DeviceAttributeSource {
    public let host: HostRoot
    /// Where a `--sysroot` dump keeps each device; nil on a machine (/sys/class/block).
    public let layout: SysrootLayout?
    private let diskCache = OnceCache<String, DiskAttributes>()
    public init(host: HostRoot = .system, layout: SysrootLayout? = nil) { self.host = host; self.layout = layout }

    /// The sysfs directory of the device named `name`.
    func directoryPath(of name: String) -> String {
        layout?.entries[name]?.path ?? "\(host.blockClass)/\(name)"
    }

    public func attributes(of name: String) throws -> SysfsDevice? {
        let link = directoryPath(of: name)
        guard let directory = SysfsDirectory(link), let dev = directory.text("dev"),
            let number = SysfsTree.deviceNumber(dev)
        else { return nil }
        let partitionNumber = directory.text("partition").flatMap { Int($0) }
        let isPartition = partitionNumber != nil
        // A partition's directory sits inside its disk's: /sys/devices/.../sda/sda1.
        // Partitions have no queue/ or removable of their own: their disk's apply.
        let parent = isPartition ? (layout.map { $0.entries[name]?.parent } ?? SysfsTree.parentName(link)) : nil
        let disk = diskAttributes(
            parent.map { directoryPath(of: $0) } ?? link, opened: parent == nil ? directory : nil)
        // Only a loop, dm or md device has the attributes of its kind: skip the failed opens elsewhere.
        let isLoop = !isPartition && name.hasPrefix("loop"), isDM = name.hasPrefix("dm-"), isMD = name.hasPrefix("md")
        var device = SysfsDevice(
            number: number,
            size: (directory.number("size") ?? 0) * 512,
            logicalBlockSize: disk.logicalBlockSize,
            readOnly: directory.number("ro") == 1,
            removable: disk.removable,
            rotational: disk.rotational,
            parent: parent,
            start: isPartition ? directory.number("start") : nil,
            holders: directory.entries("holders"),
            slaves: directory.entries("slaves"),
            hasBackingFile: isLoop && directory.exists("loop/backing_file"),
            dmUUID: isDM ? directory.text("dm/uuid") : nil,
            dmName: isDM ? directory.text("dm/name") : nil,
            model: disk.model,
            serial: disk.serial
        )
        device.partitionNumber = partitionNumber
        device.mdLevel = isMD ? directory.text("md/level") : nil
        return device
    }

    /// What a disk's partitions share with it, read once per disk.
    struct DiskAttributes: Sendable {
        var logicalBlockSize: UInt64, removable: Bool, rotational: Bool, model: String?, serial: String?
    }

    /// The disk at `path`, read through `opened` when the caller has it open already.
    private func diskAttributes(_ path: String, opened: SysfsDirectory?) -> DiskAttributes {
        diskCache.value(for: path) {
            guard let directory = opened ?? SysfsDirectory(path) else {
                return DiskAttributes(
                    logicalBlockSize: 512, removable: false, rotational: false, model: nil, serial: nil)
            }
            return DiskAttributes(
                logicalBlockSize: directory.number("queue/logical_block_size") ?? 512,
                removable: directory.number("removable") == 1,
                rotational: directory.number("queue/rotational") == 1,
                // Raw, as lsblk shows a model udev does not know: an NVMe model is padded to 40.
                model: directory.rawText("device/model"), serial: directory.rawText("device/serial"))
        }
    }

    /// A partition's disk, from one readlink; nil for a whole device.
    public func parentName(of name: String) -> String? {
        if let layout { return layout.entries[name]?.parent }
        let link = "\(host.blockClass)/\(name)"
        // Only a partition has a `partition` attribute; a disk's directory may sit in
        // another's too (mmcblk0boot0 in mmcblk0's).
        guard ByteText.withCString(link + "/partition", { access($0, F_OK) }) == 0 else { return nil }
        return SysfsTree.parentName(link)
    }

    /// readdir's order of /sys/block, of each disk's directory (its partitions) and of
    /// each device's holders/, unsorted: the order lsblk meets devices in.
    public func entryOrder() -> [String: Int] {
        var rank: [String: Int] = [:]
        let block = host.path("/sys/block")
        let disks = Files.names(in: block) ?? []
        for (index, disk) in disks.enumerated() {
            rank[disk] = index
            for (position, name) in (Files.names(in: "\(block)/\(disk)") ?? []).enumerated()
            where name.hasPrefix(disk) && rank[name] == nil {
                rank[name] = position
            }
            for (position, name) in (Files.names(in: "\(block)/\(disk)/holders") ?? []).enumerated()
            where rank[name] == nil {
                rank[name] = position
            }
        }
        return rank
    }

    /// The kernel name of the block device numbered `number`: /sys/dev/block/MAJ:MIN
    /// links to its directory, named after it.
    public func name(of number: DeviceNumber) -> String? {
        Files.linkTarget(host.path("/sys/dev/block/\(number.major):\(number.minor)"))
            .flatMap { $0.split(separator: "/").last.map(String.init) }
    }

    /// The disk of a partition: its class link points into the disk's directory
    /// (../../devices/.../sda/sda1), so one readlink names it.
    static func parentName(_ link: String) -> String? {
        ByteText.withCString(link) { path in
            LinkText.withTarget({ readlink(path, $0, $1) }, LinkText.componentBeforeLast) ?? nil
        }
    }

    /// "8:1" as sysfs writes it in `dev`.
    static func deviceNumber(_ text: String) -> DeviceNumber? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let major = UInt32(parts[0]), let minor = UInt32(parts[1]) else { return nil }
        return DeviceNumber(major: major, minor: minor)
    }
}

/// One device's sysfs directory, open while its attributes are read.
final class SysfsDirectory {
    private let directory: FileDescriptor
    private var fd: Int32 { directory.fd }

    /// nil when there is no such directory (the device went, or never was).
    init?(_ path: String) {
        guard let directory = try? FileDescriptor(directory: path) else { return nil }
        self.directory = directory
    }

    /// An attribute's text without surrounding whitespace; nil when absent, unreadable or empty.
    /// Read with read(2), not FileManager.contents: that leaks its 4 KiB buffer for every
    /// file that reads empty (sysfs has such, a disk's `events` for one), found by LeakSanitizer.
    func text(_ attribute: String) -> String? {
        bytes(attribute) { bytes in
            // ASCII blanks go before decoding, so the usual value is never copied to be
            // trimmed. One next to a non-ASCII byte stays for the trim by characters
            // after: a combining mark after it, or a prepended mark before it, makes
            // them one character, which may not be a blank.
            var (start, end) = (0, bytes.count)
            while end > start, SysfsDirectory.isBlank(bytes[end - 1]), end - 1 == start || bytes[end - 2] < 0x80 {
                end -= 1
            }
            while start < end, SysfsDirectory.isBlank(bytes[start]), start + 1 == end || bytes[start + 1] < 0x80 {
                start += 1
            }
            guard start < end else { return nil }
            // Vendor strings (device/model) are not always UTF-8: keep their bytes.
            var text = ByteText.decode(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
            if text.first?.isWhitespace == true || text.last?.isWhitespace == true { text = text.trimmingWhitespace }
            return text.isEmpty ? nil : text
        } ?? nil
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0d).contains(byte) }

    /// An attribute as util-linux's ul_path_read_string reads it: its one trailing
    /// newline dropped, padding kept (an ATA model is 40 characters, a SCSI vendor 8);
    /// nil when absent, unreadable or empty.
    func rawText(_ attribute: String) -> String? {
        bytes(attribute) { bytes in
            let count = bytes.last == UInt8(ascii: "\n") ? bytes.count - 1 : bytes.count
            return count == 0 ? nil : ByteText.decode(UnsafeRawBufferPointer(rebasing: bytes[..<count]))
        } ?? nil
    }

    /// Where the symlink `name` in this directory points (`device`, `subsystem`).
    func linkTarget(_ name: String) -> String? {
        LinkText.withTarget({ readlinkat(fd, name, $0, $1) }) { $0.isEmpty ? nil : ByteText.decode($0) } ?? nil
    }

    /// The attribute's bytes, lent to `body` from a buffer on the stack; nil when it
    /// cannot be opened or read.
    private func bytes<Result>(_ attribute: String, _ body: (UnsafeRawBufferPointer) -> Result) -> Result? {
        guard let opened = try? FileDescriptor.open(attribute, O_RDONLY, relativeTo: directory, "") else { return nil }
        // A sysfs attribute is at most one page and comes whole from the first read:
        // a short read is the end, with no second call to find it so.
        return opened.closeAfter { file in
            withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 8) { buffer in
                var total = 0
                while total < buffer.count {
                    let want = buffer.count - total
                    let got = Glibc.read(file.fd, buffer.baseAddress! + total, want)
                    if got < 0 && errno == EINTR { continue }
                    guard got >= 0 else { return nil }
                    total += got
                    if got < want { break }
                }
                return body(UnsafeRawBufferPointer(rebasing: buffer[..<total]))
            }
        }
    }

    func number(_ attribute: String) -> UInt64? { text(attribute).flatMap { UInt64($0) } }

    func exists(_ attribute: String) -> Bool { faccessat(fd, attribute, F_OK, 0) == 0 }

    /// The names in the subdirectory `name` (holders/, slaves/), sorted; none when absent.
    func entries(_ name: String) -> [String] {
        guard let opened = try? FileDescriptor.open(name, O_RDONLY | O_DIRECTORY, relativeTo: directory, "") else {
            return []
        }
        return ((try? DirectoryAccess.entryNames(consuming: opened, name)) ?? []).map(DirectoryAccess.text).sorted()
    }
}
