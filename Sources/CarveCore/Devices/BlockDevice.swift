/// What a block device is, in lsblk's words (the TYPE column).
public enum DeviceKind: String, Sendable, Hashable, Codable, CaseIterable {
    case disk, part, loop, rom, raid, crypt, lvm, dm, md
}

/// A device number, printed as lsblk prints MAJ:MIN.
public struct DeviceNumber: Sendable, Hashable, Codable, CustomStringConvertible {
    public var major: UInt32
    public var minor: UInt32
    public init(major: UInt32, minor: UInt32) { self.major = major; self.minor = minor }
    public var description: String { "\(major):\(minor)" }

    /// The number as makedev(3) packs it, the order lsblk sorts devices in (so a minor
    /// of 256 or more sorts after a higher major, as there).
    public var packed: UInt64 {
        let major = UInt64(major), minor = UInt64(minor)
        return ((major & 0xffff_f000) << 32) | ((major & 0xfff) << 8) | ((minor & 0xffff_ff00) << 12) | (minor & 0xff)
    }

    /// The number a `dev_t` (stat's st_rdev) packs, as major(3) and minor(3) unpack it.
    public init(packed raw: UInt64) {
        major = UInt32(truncatingIfNeeded: ((raw >> 8) & 0xfff) | ((raw >> 32) & ~UInt64(0xfff)))
        minor = UInt32(truncatingIfNeeded: (raw & 0xff) | ((raw >> 12) & ~UInt64(0xff)))
    }
}

/// What carve knows of a device beyond its geometry: one table keyed by field (the
/// lsblk column each field feeds). Readers (udev, libblkid, sysfs, a dump's udev
/// files) fill it; columns read it; merging sources is one loop over the keys. A
/// new property is a `DeviceField` case, the reader that knows it, and its column.
public struct DeviceProperties: Sendable, Hashable, Codable {
    /// Every known value, as its reader found it (numbers as decimal text).
    public var values: [DeviceField: String] = [:]

    public init(_ values: [DeviceField: String] = [:]) { self.values = values }

    public init(
        fsType: String? = nil, fsVersion: String? = nil, uuid: String? = nil, label: String? = nil,
        partUUID: String? = nil, partType: String? = nil, partLabel: String? = nil, partNumber: Int? = nil,
        ptType: String? = nil, ptUUID: String? = nil, model: String? = nil, serial: String? = nil
    ) {
        let pairs: [(DeviceField, String?)] = [
            (.fsType, fsType), (.fsVersion, fsVersion), (.uuid, uuid), (.label, label), (.partUUID, partUUID),
            (.partType, partType), (.partLabel, partLabel), (.partNumber, partNumber.map(String.init)),
            (.ptType, ptType), (.ptUUID, ptUUID), (.model, model), (.serial, serial),
        ]
        for case let (field, value?) in pairs { values[field] = value }
    }

    public subscript(_ field: DeviceField) -> String? {
        get { values[field] }
        set { values[field] = newValue }
    }

    public var fsType: String? {
        get { values[.fsType] }
        set { values[.fsType] = newValue }
    }
    public var fsVersion: String? {
        get { values[.fsVersion] }
        set { values[.fsVersion] = newValue }
    }
    public var uuid: String? {
        get { values[.uuid] }
        set { values[.uuid] = newValue }
    }
    public var label: String? {
        get { values[.label] }
        set { values[.label] = newValue }
    }
    public var partUUID: String? {
        get { values[.partUUID] }
        set { values[.partUUID] = newValue }
    }
    public var partType: String? {
        get { values[.partType] }
        set { values[.partType] = newValue }
    }
    public var partLabel: String? {
        get { values[.partLabel] }
        set { values[.partLabel] = newValue }
    }
    public var partNumber: Int? {
        get { values[.partNumber].flatMap { Int($0) } }
        set { values[.partNumber] = newValue.map(String.init) }
    }
    public var ptType: String? {
        get { values[.ptType] }
        set { values[.ptType] = newValue }
    }
    public var ptUUID: String? {
        get { values[.ptUUID] }
        set { values[.ptUUID] = newValue }
    }
    public var model: String? {
        get { values[.model] }
        set { values[.model] = newValue }
    }
    public var serial: String? {
        get { values[.serial] }
        set { values[.serial] = newValue }
    }

    /// These properties, with every field that is nil here taken from `fallback`.
    /// Property sources are merged in a stated order: earlier sources win.
    public func filling(from fallback: DeviceProperties) -> DeviceProperties {
        var merged = self
        merged.values.merge(fallback.values) { mine, _ in mine }
        return merged
    }
}

/// One block device of the machine with everything carve knows about it.
public struct BlockDevice: Sendable, Hashable, Codable {
    /// Kernel name, e.g. `sda1`, `loop0p2`, `dm-0`.
    public var name: String
    /// Device node, e.g. `/dev/sda1`.
    public var path: String
    public var kind: DeviceKind
    public var number: DeviceNumber
    /// Size in bytes.
    public var size: UInt64
    /// Logical sector size in bytes (sysfs `queue/logical_block_size`).
    public var sectorSize: UInt64
    public var readOnly: Bool
    public var removable: Bool
    public var rotational: Bool
    /// For a partition: the kernel name of its disk.
    public var parent: String?
    /// For a partition: first sector, in 512-byte units as sysfs reports it.
    public var start: UInt64?
    /// Kernel names of the devices stacked on this one (sysfs `holders/`).
    public var holders: [String]
    /// Kernel names of the devices this one sits on (sysfs `slaves/`).
    public var slaves: [String]
    public var properties: DeviceProperties
    /// Where the device is mounted, in mount-table order; empty when not mounted.
    public var mountpoints: [String]
    /// The root of the filesystem each mount shows (mountinfo's root), swap left out: FSROOTS.
    public var fsRoots: [String] = []
    /// The one mountpoint lsblk's MOUNTPOINT column shows (see `attachMountpoints`).
    public var primaryMountpoint: String? = nil
    /// For a device-mapper device: its name (sysfs `dm/name`), which lsblk shows as NAME
    /// and under /dev/mapper; nil otherwise.
    public var mapperName: String? = nil
    /// The TYPE lsblk shows when it says more than `kind` (an md array's RAID level).
    public var typeName: String? = nil
    /// lsblk's TYPE column.
    public var type: String { typeName ?? kind.rawValue }
    /// The name lsblk's NAME column shows: the mapper name of a dm device, else the kernel name.
    public var displayName: String { mapperName ?? name }

    public init(
        name: String, path: String? = nil, kind: DeviceKind, number: DeviceNumber, size: UInt64,
        sectorSize: UInt64 = 512, readOnly: Bool = false, removable: Bool = false, rotational: Bool = false,
        parent: String? = nil, start: UInt64? = nil, holders: [String] = [], slaves: [String] = [],
        properties: DeviceProperties = DeviceProperties(), mountpoints: [String] = []
    ) {
        self.name = name; self.path = path ?? "/dev/\(name)"; self.kind = kind; self.number = number
        self.size = size; self.sectorSize = sectorSize; self.readOnly = readOnly; self.removable = removable
        self.rotational = rotational; self.parent = parent; self.start = start; self.holders = holders
        self.slaves = slaves; self.properties = properties; self.mountpoints = mountpoints
        primaryMountpoint = mountpoints.first
    }
}
