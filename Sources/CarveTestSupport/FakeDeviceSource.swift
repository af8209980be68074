import CarveCore

/// A filesystem as a fake device carries it.
public struct FakeFilesystem: Sendable, Hashable {
    public var type: String
    public var uuid: String?
    public var label: String?
    public var version: String?

    public init(_ type: String, uuid: String? = nil, label: String? = nil, version: String? = nil) {
        self.type = type; self.uuid = uuid; self.label = label; self.version = version
    }

    public static func ext4(label: String? = nil, uuid: String = "0b6a8f56-5d2c-4f43-9e6b-6d3a1c2b4e01") -> Self {
        Self("ext4", uuid: uuid, label: label, version: "1.0")
    }
    public static func btrfs(label: String? = nil, uuid: String = "5e3c1d7a-2b4f-4c89-8a1e-3f2d6b7c9a02") -> Self {
        Self("btrfs", uuid: uuid, label: label)
    }
    public static func vfat(label: String? = nil, uuid: String = "1A2B-3C4D") -> Self {
        Self("vfat", uuid: uuid, label: label, version: "FAT32")
    }
    public static func xfs(label: String? = nil, uuid: String = "7d9e2f41-6a3b-4c5d-8e7f-9a0b1c2d3e04") -> Self {
        Self("xfs", uuid: uuid, label: label)
    }
    public static func swap(label: String? = nil, uuid: String = "2c4e6a8b-0d1f-4a3c-9e5b-7d9f1a3c5e06") -> Self {
        Self("swap", uuid: uuid, label: label, version: "1")
    }
    public static func crypto(uuid: String = "9f8e7d6c-5b4a-4938-8271-605f4e3d2c07") -> Self {
        Self("crypto_LUKS", uuid: uuid, version: "2")
    }
}

/// A partition of a fake disk; numbers, start sectors and device numbers are assigned in order.
public struct FakePartition: Sendable, Hashable {
    public var size: UInt64
    public var filesystem: FakeFilesystem?
    public var partLabel: String?
    public var partUUID: String?
    public var partType: String
    public var mountpoints: [String]

    public init(
        size: UInt64, _ filesystem: FakeFilesystem? = nil, partLabel: String? = nil, partUUID: String? = nil,
        partType: String = "0fc63daf-8483-4772-8e79-3d69d8477de4", mountpoints: [String] = []
    ) {
        self.size = size; self.filesystem = filesystem; self.partLabel = partLabel; self.partUUID = partUUID
        self.partType = partType; self.mountpoints = mountpoints
    }
}

/// What a path in the fake's /dev is, for `device(at:)`'s errors.
public enum FakePath: Sendable, Hashable {
    case regularFile, directory, characterDevice
    /// A symlink such as /dev/disk/by-uuid/... to another path.
    case symlink(String)
}

/// An in-memory `DeviceSource`: disks, partitions, loop devices and stacked devices
/// described with builders, for unit tests of everything above the platform layer.
///
///     let source = FakeDeviceSource()
///         .disk("sda", size: 100 * .gib, partitions: [
///             FakePartition(size: 512 * .mib, .vfat(label: "EFI")),
///             FakePartition(size: 90 * .gib, .ext4(label: "my data"), mountpoints: ["/srv"]),
///         ])
///         .loop("loop0", size: .gib, .xfs())
///         .stacked("dm-0", kind: .crypt, on: ["sda2"], size: 90 * .gib, .ext4())
public struct FakeDeviceSource: DeviceSource {
    public var all: [BlockDevice] = []
    public var fieldsNeedingRoot: [String] = []
    /// Paths that are not device nodes, or symlinks to them.
    public var paths: [String: FakePath] = [:]
    /// When set, `devices()` throws it: for testing how commands report a failing source.
    public var failure: RuntimeError?

    public init() {}

    public func devices() throws -> [BlockDevice] {
        if let failure { throw failure }
        return all
    }

    public func device(at path: String) throws -> BlockDevice {
        if let failure { throw failure }
        var current = path
        for _ in 0..<40 {
            if let device = all.first(where: { $0.path == current }) { return device }
            switch paths[current] {
            case .symlink(let target)?: current = target
            case .regularFile?: throw DevicePathError.notBlockDevice(path, is: .regularFile)
            case .directory?: throw DevicePathError.notBlockDevice(path, is: .directory)
            case .characterDevice?: throw DevicePathError.notBlockDevice(path, is: .characterDevice)
            case nil: throw DevicePathError.missing(path)
            }
        }
        throw UsageError("\(path): too many levels of symbolic links")
    }

    // MARK: builders

    /// A whole disk with a partition table (nil: none) and its partitions, named
    /// `sda1`... (or `nvme0n1p1`... when the disk name ends in a digit).
    public func disk(
        _ name: String, size: UInt64, table: String? = "gpt", ptUUID: String? = nil,
        model: String? = nil, serial: String? = nil, rotational: Bool = false, removable: Bool = false,
        filesystem: FakeFilesystem? = nil, mountpoints: [String] = [], partitions: [FakePartition] = []
    ) -> Self {
        let major: UInt32 = 8
        let minor = UInt32(all.filter { $0.number.major == major && $0.parent == nil }.count * 16)
        var copy = self
        let ptUUID = ptUUID ?? (table == nil ? nil : FakeDeviceSource.uuid(for: name))
        var disk = BlockDevice(
            name: name, kind: .disk, number: DeviceNumber(major: major, minor: minor), size: size,
            removable: removable, rotational: rotational,
            properties: FakeDeviceSource.properties(filesystem, ptType: table, ptUUID: ptUUID),
            mountpoints: mountpoints
        )
        disk.properties.model = model
        disk.properties.serial = serial
        copy.all.append(disk)
        copy.addPartitions(partitions, to: disk, numbers: { DeviceNumber(major: major, minor: minor + UInt32($0)) })
        return copy
    }

    /// A loop device holding a filesystem directly, or a partition table with partitions.
    public func loop(
        _ name: String, size: UInt64, _ filesystem: FakeFilesystem? = nil, table: String? = nil,
        mountpoints: [String] = [], partitions: [FakePartition] = []
    ) -> Self {
        let minor = UInt32(name.drop { !$0.isNumber }) ?? UInt32(all.count)
        var copy = self
        let loop = BlockDevice(
            name: name, kind: .loop, number: DeviceNumber(major: 7, minor: minor), size: size,
            properties: FakeDeviceSource.properties(
                filesystem, ptType: table, ptUUID: table == nil ? nil : FakeDeviceSource.uuid(for: name)),
            mountpoints: mountpoints
        )
        copy.all.append(loop)
        let base = UInt32(all.filter { $0.number.major == 259 }.count)
        copy.addPartitions(partitions, to: loop, numbers: { DeviceNumber(major: 259, minor: base + UInt32($0) - 1) })
        return copy
    }

    /// A device stacked on others (dm-crypt, LVM, RAID): recorded as their holder
    /// and with them as its slaves, so the tree shows it under each of them.
    public func stacked(
        _ name: String, kind: DeviceKind, on slaves: [String], size: UInt64, _ filesystem: FakeFilesystem? = nil,
        mountpoints: [String] = []
    ) -> Self {
        var copy = self
        let minor = UInt32(all.filter { $0.number.major == 254 }.count)
        copy.all.append(
            BlockDevice(
                name: name, kind: kind, number: DeviceNumber(major: 254, minor: minor), size: size, slaves: slaves,
                properties: FakeDeviceSource.properties(filesystem), mountpoints: mountpoints
            ))
        for index in copy.all.indices where slaves.contains(copy.all[index].name) {
            copy.all[index].holders.append(name)
        }
        return copy
    }

    /// Records what a non-device path is, for the bad-input errors.
    public func path(_ path: String, is kind: FakePath) -> Self {
        var copy = self
        copy.paths[path] = kind
        return copy
    }

    /// The same devices, reporting these fields as needing root.
    public func needingRoot(_ fields: [String]) -> Self {
        var copy = self
        copy.fieldsNeedingRoot = fields
        return copy
    }

    /// The same devices with `name` changed by `change` (read-only, mounted, another size...).
    public func updating(_ name: String, _ change: (inout BlockDevice) -> Void) -> Self {
        var copy = self
        for index in copy.all.indices where copy.all[index].name == name { change(&copy.all[index]) }
        return copy
    }

    /// The same devices with `name` mounted at `mountpoints` (added to any it has).
    public func mounted(_ name: String, at mountpoints: String...) -> Self {
        updating(name) { $0.mountpoints += mountpoints }
    }

    /// The device named `name`; traps when there is none (a test bug).
    public subscript(name: String) -> BlockDevice {
        guard let device = all.first(where: { $0.name == name }) else { fatalError("no fake device \(name)") }
        return device
    }

    private mutating func addPartitions(
        _ partitions: [FakePartition], to disk: BlockDevice, numbers: (Int) -> DeviceNumber
    ) {
        var start: UInt64 = 2048
        for (offset, partition) in partitions.enumerated() {
            let number = offset + 1
            let suffix = disk.name.last?.isNumber == true ? "p\(number)" : "\(number)"
            let name = disk.name + suffix
            var properties = FakeDeviceSource.properties(
                partition.filesystem, ptType: disk.properties.ptType, ptUUID: disk.properties.ptUUID)
            properties.partUUID = partition.partUUID ?? FakeDeviceSource.uuid(for: name)
            properties.partType = partition.partType
            properties.partLabel = partition.partLabel
            properties.partNumber = number
            all.append(
                BlockDevice(
                    name: name, kind: .part, number: numbers(number), size: partition.size,
                    readOnly: disk.readOnly, removable: disk.removable, rotational: disk.rotational,
                    parent: disk.name, start: start, properties: properties, mountpoints: partition.mountpoints
                ))
            start += partition.size / 512
        }
    }

    private static func properties(
        _ filesystem: FakeFilesystem?, ptType: String? = nil, ptUUID: String? = nil
    ) -> DeviceProperties {
        DeviceProperties(
            fsType: filesystem?.type, fsVersion: filesystem?.version, uuid: filesystem?.uuid,
            label: filesystem?.label, ptType: ptType, ptUUID: ptUUID
        )
    }

    /// A stable made-up UUID for a name, so golden outputs do not change between runs.
    static func uuid(for name: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let hex = String(hash, radix: 16).leftPadded(to: 16)
        let tail = String(hash &* 31, radix: 16).leftPadded(to: 16)
        return "\(hex.prefix(8))-\(hex.dropFirst(8).prefix(4))-\(hex.suffix(4))-\(tail.prefix(4))-\(tail.suffix(12))"
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

extension UInt64 {
    public static let kib: UInt64 = 1 << 10
    public static let mib: UInt64 = 1 << 20
    public static let gib: UInt64 = 1 << 30
}

/// statvfs answers by mountpoint, for the FS* columns of `carve devices`.
public struct FakeFilesystemSpace: FilesystemSpaceSource {
    public var byMountpoint: [String: FilesystemUsage]
    public init(_ byMountpoint: [String: FilesystemUsage] = [:]) { self.byMountpoint = byMountpoint }
    public func usage(at mountpoint: String) -> FilesystemUsage? { byMountpoint[mountpoint] }
}
