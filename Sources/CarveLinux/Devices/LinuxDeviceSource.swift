import CarveCore
import Glibc

/// The machine's block devices: libudev enumeration, then the udev database,
/// then libblkid probing for what udev lacks, sysfs attributes, and the mount table.
public struct LinuxDeviceSource: DeviceSource {
    private var inventory: DeviceInventory
    private let sysfs: SysfsTree
    /// With `--sysroot`: what of the dump could not be read (the rest is listed).
    public private(set) var sysrootProblems: [String] = []
    private let cache = InventoryCache()

    /// `mounts` is the host's mount table unless a test hands in another.
    public init(host: HostRoot = .system, mounts: (any MountTable)? = nil) {
        sysfs = SysfsTree(host: host)
        inventory = DeviceInventory(
            enumerator: SysfsBlockEnumerator(host: host), attributes: sysfs,
            propertySources: [
                UdevPropertySource(daemonRunning: UdevDaemon.isRunning(host: host)), BlkidPropertySource(),
                SysfsPropertySource(tree: sysfs), DeviceNodePropertySource(), PartitionTypeNameSource(),
            ],
            mounts: CanonicalSourceMountTable(
                base: SwapAwareMountTable(base: mounts ?? ProcMountTable(host: host), swaps: host.swaps))
        )
    }

    /// A machine kept in a directory, as `lsblk --sysroot` reads one: its /sys, /proc
    /// and the udev records of `carve devices --dump` (DIR/dev/NAME). Nothing is probed,
    /// no udevd is asked and no path is resolved on this machine.
    public init(sysroot: HostRoot) {
        let layout = SysrootLayout(host: sysroot)
        let mounts = DumpMountTable(host: sysroot)
        sysfs = SysfsTree(host: sysroot, layout: layout)
        inventory = DeviceInventory(
            enumerator: SysrootBlockEnumerator(layout: layout), attributes: sysfs,
            propertySources: [
                UdevFilePropertySource(host: sysroot), SysfsPropertySource(tree: sysfs), PartitionTypeNameSource(),
            ],
            mounts: SwapAwareMountTable(base: mounts, swaps: sysroot.swaps, lenient: true))
        sysrootProblems = layout.problems + mounts.problems
    }

    /// This source, reading also the fields of `fields` (sysfs attributes a column shows).
    public func requesting(_ fields: Set<DeviceField>) -> any DeviceSource {
        var copy = LinuxDeviceSource(inventory: inventory, sysfs: sysfs)
        copy.sysrootProblems = sysrootProblems
        copy.inventory.requested.formUnion(fields)
        return copy
    }

    public func includingEmpty() -> any DeviceSource {
        var copy = LinuxDeviceSource(inventory: inventory, sysfs: sysfs)
        copy.sysrootProblems = sysrootProblems
        copy.inventory.includesHidden = true
        return copy
    }

    public func entryOrder() -> [String: Int] { sysfs.entryOrder() }

    private init(inventory: DeviceInventory, sysfs: SysfsTree) {
        self.inventory = inventory
        self.sysfs = sysfs
    }

    public func devices() throws -> [BlockDevice] { try cache.all(of: inventory).devices }

    public var fieldsNeedingRoot: [String] { cache.fieldsNeedingRoot(on: nil) }

    public func fieldsNeedingRoot(on names: Set<String>) -> [String] { cache.fieldsNeedingRoot(on: names) }

    /// Reads and probes only the named devices and what sits on them, not the whole machine.
    public func devices(under names: [String]) throws -> [BlockDevice] {
        let listed = try inventory.listedDevices(under: names)
        let subtree = Set(DeviceTree.flattened(DeviceTree.build(listed, roots: names)).map(\.name))
        let result = try cache.remember(inventory.collect(restrictedTo: subtree, listed: listed))
        return result.devices.filter { subtree.contains($0.name) }
    }

    public func device(at path: String) throws -> BlockDevice {
        let name = try deviceName(at: path)
        let listed = try inventory.listedDevices(under: [name], dependents: false)
        let result = try cache.remember(inventory.collect(restrictedTo: [name], listed: listed))
        guard let device = result.devices.first(where: { $0.name == name }) else {
            throw DevicePathError.notListed(path)
        }
        return device
    }

    /// From the device number, through sysfs's /sys/dev/block/MAJ:MIN link.
    public func deviceName(at path: String) throws -> String {
        let number = try LinuxDeviceSource.blockDeviceNumber(at: path)
        guard let name = sysfs.name(of: number) else { throw DevicePathError.notListed(path) }
        return name
    }

    /// The device number of the block device at `path`, following symlinks such as
    /// /dev/disk/by-uuid/...; a one-line usage error for anything else.
    static func blockDeviceNumber(at path: String) throws -> DeviceNumber {
        var info = stat()
        guard ByteText.withCString(path, { stat($0, &info) }) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw DevicePathError.missing(path) }
            throw SystemCallError("cannot use \(path)", call: "stat", errno: code)
        }
        switch info.st_mode & S_IFMT {
        case S_IFBLK:
            return DeviceNumber(packed: UInt64(info.st_rdev))
        case S_IFREG: throw DevicePathError.notBlockDevice(path, is: .regularFile)
        case S_IFDIR: throw DevicePathError.notBlockDevice(path, is: .directory)
        case S_IFCHR: throw DevicePathError.notBlockDevice(path, is: .characterDevice)
        default: throw DevicePathError.notBlockDevice(path, is: .other)
        }
    }
}

/// What this source has collected: the whole inventory once `devices()` ran, and
/// the fields each described device lacked for want of privileges.
private final class InventoryCache: @unchecked Sendable {
    private let lock = Lock()
    private var full: DeviceInventory.Result?
    private var denied: [String: Set<DeviceField>] = [:]

    func all(of inventory: DeviceInventory) throws -> DeviceInventory.Result {
        lock.lock()
        defer { lock.unlock() }
        if let full { return full }
        let result = try inventory.collect()
        full = result
        denied.merge(result.deniedFields) { $1 }
        return result
    }

    func remember(_ result: DeviceInventory.Result) -> DeviceInventory.Result {
        lock.lock()
        defer { lock.unlock() }
        denied.merge(result.deniedFields) { $1 }
        return result
    }

    func fieldsNeedingRoot(on names: Set<String>?) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return DeviceInventory.Result(devices: [], deniedFields: denied).fieldsNeedingRoot(on: names)
    }
}

/// The mount table plus active swap devices from /proc/swaps, shown as "[SWAP]" like lsblk.
struct SwapAwareMountTable: MountTable {
    let base: any MountTable
    let swaps: String
    /// A dump's swaps file that does not parse means no swap, not a failed listing.
    var lenient = false

    func mounts() throws -> [MountEntry] {
        let mounts = try base.mounts()
        // No /proc/swaps (a kernel without swap) means no swap, not an error.
        guard let text = Files.text(swaps) else { return mounts }
        let paths = lenient ? (try? SwapList.devicePaths(text)) ?? [] : try SwapList.devicePaths(text)
        return mounts + SwapList.entries(for: paths)
    }
}

/// Mount sources with symlinks resolved (/dev/disk/by-label/x → /dev/loop3p2), so a
/// btrfs mount, whose device number is anonymous, is found by its source path.
struct CanonicalSourceMountTable: MountTable {
    let base: any MountTable

    func mounts() throws -> [MountEntry] {
        try base.mounts().map { entry in
            guard entry.source.hasPrefix("/dev/"), let resolved = realPath(entry.source) else { return entry }
            var copy = entry
            copy.source = resolved
            return copy
        }
    }
}
