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

/// Identification of a device's content: filesystem, partition entry, partition table,
/// hardware. Every field is optional because every source knows only some of them.
public struct DeviceProperties: Sendable, Hashable, Codable {
    public var fsType: String?
    public var fsVersion: String?
    public var uuid: String?
    public var label: String?
    public var partUUID: String?
    public var partType: String?
    public var partLabel: String?
    public var partNumber: Int?
    public var ptType: String?
    public var ptUUID: String?
    public var model: String?
    public var serial: String?

    public init(
        fsType: String? = nil, fsVersion: String? = nil, uuid: String? = nil, label: String? = nil,
        partUUID: String? = nil, partType: String? = nil, partLabel: String? = nil, partNumber: Int? = nil,
        ptType: String? = nil, ptUUID: String? = nil, model: String? = nil, serial: String? = nil
    ) {
        self.fsType = fsType; self.fsVersion = fsVersion; self.uuid = uuid; self.label = label
        self.partUUID = partUUID; self.partType = partType; self.partLabel = partLabel
        self.partNumber = partNumber; self.ptType = ptType; self.ptUUID = ptUUID
        self.model = model; self.serial = serial
    }

    /// These properties, with every field that is nil here taken from `fallback`.
    /// Property sources are merged in a stated order: earlier sources win.
    public func filling(from fallback: DeviceProperties) -> DeviceProperties {
        DeviceProperties(
            fsType: fsType ?? fallback.fsType, fsVersion: fsVersion ?? fallback.fsVersion,
            uuid: uuid ?? fallback.uuid, label: label ?? fallback.label,
            partUUID: partUUID ?? fallback.partUUID, partType: partType ?? fallback.partType,
            partLabel: partLabel ?? fallback.partLabel, partNumber: partNumber ?? fallback.partNumber,
            ptType: ptType ?? fallback.ptType, ptUUID: ptUUID ?? fallback.ptUUID,
            model: model ?? fallback.model, serial: serial ?? fallback.serial
        )
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
