import CarveCore
import Foundation
import Glibc

/// The machine's block devices: libudev enumeration, then the udev database,
/// then libblkid probing for what udev lacks, sysfs attributes, and the mount table.
public struct LinuxDeviceSource: DeviceSource {
    private let inventory: DeviceInventory
    private let cache = InventoryCache()

    /// `sysfsRoot` is "/" except in tests that hand in a fixture tree.
    public init(sysfsRoot: String = "/", mounts: any MountTable = ProcMountTable()) {
        inventory = DeviceInventory(
            enumerator: UdevBlockEnumerator(), attributes: SysfsTree(root: sysfsRoot),
            propertySources: [UdevPropertySource(), BlkidPropertySource()],
            mounts: CanonicalSourceMountTable(base: mounts)
        )
    }

    public func devices() throws -> [BlockDevice] { try cache.result(of: inventory).devices }

    public var fieldsNeedingRoot: [String] { cache.stored?.fieldsNeedingRoot() ?? [] }

    public func fieldsNeedingRoot(on names: Set<String>) -> [String] { cache.stored?.fieldsNeedingRoot(on: names) ?? [] }

    public func device(at path: String) throws -> BlockDevice {
        let number = try LinuxDeviceSource.blockDeviceNumber(at: path)
        guard let device = try devices().first(where: { $0.number == number }) else {
            throw DevicePathError.notListed(path)
        }
        return device
    }

    /// The device number of the block device at `path`, following symlinks such as
    /// /dev/disk/by-uuid/...; a one-line usage error for anything else.
    static func blockDeviceNumber(at path: String) throws -> DeviceNumber {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw DevicePathError.missing(path) }
            throw SystemCallError("cannot use \(path)", call: "stat", errno: code)
        }
        switch info.st_mode & S_IFMT {
        case S_IFBLK:
            let raw = UInt64(info.st_rdev)
            let major = UInt32(truncatingIfNeeded: ((raw >> 8) & 0xfff) | ((raw >> 32) & ~UInt64(0xfff)))
            let minor = UInt32(truncatingIfNeeded: (raw & 0xff) | ((raw >> 12) & ~UInt64(0xff)))
            return DeviceNumber(major: major, minor: minor)
        case S_IFREG: throw DevicePathError.notBlockDevice(path, is: .regularFile)
        case S_IFDIR: throw DevicePathError.notBlockDevice(path, is: .directory)
        case S_IFCHR: throw DevicePathError.notBlockDevice(path, is: .characterDevice)
        default: throw DevicePathError.notBlockDevice(path, is: .other)
        }
    }
}

/// One inventory per source: `device(at:)` after `devices()` costs no second probe,
/// and `fieldsNeedingRoot` reports what the collection found.
private final class InventoryCache: @unchecked Sendable {
    private let lock = NSLock()
    private var storedResult: DeviceInventory.Result?

    func result(of inventory: DeviceInventory) throws -> DeviceInventory.Result {
        lock.lock()
        defer { lock.unlock() }
        if let storedResult { return storedResult }
        let result = try inventory.collect()
        storedResult = result
        return result
    }

    /// The collected inventory, nil before the first `result(of:)`.
    var stored: DeviceInventory.Result? {
        lock.lock()
        defer { lock.unlock() }
        return storedResult
    }
}

/// Mount sources with symlinks resolved (/dev/disk/by-label/x → /dev/loop3p2), so a
/// btrfs mount, whose device number is anonymous, is found by its source path.
struct CanonicalSourceMountTable: MountTable {
    let base: any MountTable

    func mounts() throws -> [MountEntry] {
        try base.mounts().map { entry in
            guard entry.source.hasPrefix("/dev/"), let resolved = realpath(entry.source, nil) else { return entry }
            defer { free(resolved) }
            var copy = entry
            copy.source = String(cString: resolved)
            return copy
        }
    }
}
