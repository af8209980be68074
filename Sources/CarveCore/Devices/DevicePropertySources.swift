/// A property of a device, named as its lsblk column. Property sources declare
/// which of these they can supply, so the inventory knows whom to ask and which
/// fields stay unknown when a source is denied.
public enum DeviceField: String, CaseIterable, Sendable, HashedByCase, Codable {
    case fsType = "FSTYPE", fsVersion = "FSVER", uuid = "UUID", label = "LABEL"
    case partUUID = "PARTUUID", partType = "PARTTYPE", partLabel = "PARTLABEL", partNumber = "PARTN"
    case ptType = "PTTYPE", ptUUID = "PTUUID", model = "MODEL", serial = "SERIAL"
    // Identification udev (or a dump's udev files) knows.
    case revision = "REV", wwn = "WWN", partFlags = "PARTFLAGS", partTypeName = "PARTTYPENAME"
    // The device node: stat(2) of /dev/NAME, or a dump's udev file.
    case owner = "OWNER", group = "GROUP", mode = "MODE"
    // sysfs attributes, read only when a column asks for them.
    case vendor = "VENDOR", readAhead = "RA", hotplug = "HOTPLUG", addRandom = "RAND", state = "STATE"
    case scheduler = "SCHED", requestQueueSize = "RQ-SIZE", alignment = "ALIGNMENT", minIO = "MIN-IO"
    case optimalIO = "OPT-IO", physicalSector = "PHY-SEC", discardAlignment = "DISC-ALN"
    case discardGranularity = "DISC-GRAN", discardMax = "DISC-MAX", discardZeroes = "DISC-ZERO"
    case writeSame = "WSAME", zoned = "ZONED", zoneSize = "ZONE-SZ", zoneWriteGranularity = "ZONE-WGRAN"
    case zoneAppend = "ZONE-APP", zoneCount = "ZONE-NR", zoneOpenMax = "ZONE-OMAX", zoneActiveMax = "ZONE-AMAX"
    case dax = "DAX", diskSeq = "DISK-SEQ", hctl = "HCTL", transport = "TRAN", subsystems = "SUBSYSTEMS"

    /// True when `properties` has a value for this field.
    public func isKnown(in properties: DeviceProperties) -> Bool { properties.values[self] != nil }

    /// What every listing reads, whatever its columns: content identification.
    public static let standard: Set<DeviceField> = [
        .fsType, .fsVersion, .uuid, .label, .partUUID, .partType, .partLabel, .partNumber, .ptType, .ptUUID,
        .model, .serial,
    ]
}

/// A block device as enumeration finds it: its kernel name and, when known, its node.
public struct EnumeratedDevice: Sendable, Hashable {
    public var name: String
    public var node: String?
    public init(name: String, node: String? = nil) { self.name = name; self.node = node }
}

/// Lists the block devices of the machine (libudev's `block` subsystem in production).
public protocol BlockDeviceEnumerator: Sendable {
    func blockDevices() throws -> [EnumeratedDevice]
}

/// What sysfs says about one block device: geometry, flags and how it is stacked.
public struct SysfsDevice: Sendable, Hashable {
    public var number: DeviceNumber
    /// Size in bytes (sysfs counts 512-byte sectors whatever the sector size).
    public var size: UInt64
    public var logicalBlockSize: UInt64
    public var readOnly: Bool
    public var removable: Bool
    public var rotational: Bool
    /// For a partition: the kernel name of its disk.
    public var parent: String?
    /// For a partition: its first sector, in 512-byte units.
    public var start: UInt64?
    /// For a partition: its number in the table (sysfs `partition`).
    public var partitionNumber: Int? = nil
    public var holders: [String]
    public var slaves: [String]
    /// For a loop device: whether a file is attached (`loop/backing_file` exists).
    public var hasBackingFile: Bool
    /// For device-mapper devices: `dm/uuid`, whose prefix says crypt or LVM.
    public var dmUUID: String?
    /// For device-mapper devices: `dm/name`, e.g. "cryptroot".
    public var dmName: String? = nil
    /// For md arrays: `md/level`, e.g. "raid1", which lsblk shows as TYPE.
    public var mdLevel: String? = nil
    /// Hardware identification sysfs knows without udev (`device/model`, `device/serial`).
    public var model: String?
    public var serial: String?

    public init(
        number: DeviceNumber, size: UInt64, logicalBlockSize: UInt64 = 512, readOnly: Bool = false,
        removable: Bool = false, rotational: Bool = false, parent: String? = nil, start: UInt64? = nil,
        holders: [String] = [], slaves: [String] = [], hasBackingFile: Bool = false, dmUUID: String? = nil,
        dmName: String? = nil, model: String? = nil, serial: String? = nil
    ) {
        self.dmName = dmName
        self.number = number; self.size = size; self.logicalBlockSize = logicalBlockSize
        self.readOnly = readOnly; self.removable = removable; self.rotational = rotational
        self.parent = parent; self.start = start; self.holders = holders; self.slaves = slaves
        self.hasBackingFile = hasBackingFile; self.dmUUID = dmUUID; self.model = model; self.serial = serial
    }
}

/// Reads sysfs attributes of a block device by kernel name; nil when sysfs has no such device.
public protocol DeviceAttributeSource: Sendable {
    func attributes(of name: String) throws -> SysfsDevice?
    /// The disk a partition is on; nil for a whole device. A source may tell it
    /// without reading the other attributes, which is cheaper.
    func parentName(of name: String) -> String?
}

extension DeviceAttributeSource {
    public func parentName(of name: String) -> String? { (try? attributes(of: name))??.parent }
}

/// One source of content properties (the udev database, libblkid probing...).
public protocol DevicePropertySource: Sendable {
    /// Short name for messages, e.g. "udev" or "blkid".
    var name: String { get }
    /// The fields this source can supply.
    var fields: Set<DeviceField> { get }
    /// What this source knows about `device` (nil when it has no record).
    /// `parent` is the disk of a partition, for sources that read the partition table there.
    /// Throws an error whose exit status is `.needsRoot` when denied for lack of privileges.
    func properties(of device: BlockDevice, parent: BlockDevice?) throws -> DeviceProperties?
    /// The same, for a source that reads each field apart (sysfs) and can skip the
    /// ones no column asked for; `wanted` is a subset of `fields`.
    func properties(
        of device: BlockDevice, parent: BlockDevice?, wanted: Set<DeviceField>
    ) throws
        -> DeviceProperties?
    /// True when a record of this source that holds any probe result (a filesystem,
    /// a partition table or entry) holds all of them, so a field it lacks is absent
    /// from the device and later sources need not probe for it: udev's, whose blkid
    /// builtin stores everything one probe found. lsblk trusts such a record alone.
    var recordsWholeProbes: Bool { get }
}

extension DevicePropertySource {
    public var recordsWholeProbes: Bool { false }

    public func properties(
        of device: BlockDevice, parent: BlockDevice?, wanted: Set<DeviceField>
    ) throws
        -> DeviceProperties?
    {
        try properties(of: device, parent: parent)
    }
}

extension DeviceField {
    /// What one blkid probe reports: the fields a whole-probe record settles.
    public static let probed: Set<DeviceField> = [
        .fsType, .fsVersion, .uuid, .label, .partUUID, .partType, .partLabel, .partNumber, .ptType, .ptUUID,
    ]

    /// The fields `found` settles when it came from a whole-probe record: all probed
    /// fields once it holds any probe result, none otherwise.
    public static func settled(by found: DeviceProperties) -> Set<DeviceField> {
        let holdsAProbe = found.fsType != nil || found.ptType != nil || found.partUUID != nil || found.partNumber != nil
        return holdsAProbe ? probed : []
    }
}

extension DeviceKind {
    /// The TYPE lsblk gives a device, from its kernel name and what sysfs says.
    public static func classify(name: String, isPartition: Bool, dmUUID: String?) -> DeviceKind {
        if isPartition { return .part }
        if name.hasPrefix("loop") { return .loop }
        if name.hasPrefix("sr") { return .rom }
        if name.hasPrefix("md") { return .raid }
        if name.hasPrefix("dm-") {
            let uuid = dmUUID ?? ""
            if uuid.hasPrefix("CRYPT-") { return .crypt }
            if uuid.hasPrefix("LVM-") { return .lvm }
            return .dm
        }
        return .disk
    }

    /// The TYPE text lsblk shows, where it says more than the kind: an md array's
    /// RAID level ("raid1"; "md" when sysfs has none) and a device-mapper device's
    /// owner, the prefix of its DM UUID ("mpath", "part" for kpartx's partN-).
    public func typeName(dmUUID: String?, mdLevel: String?) -> String {
        switch self {
        case .raid:
            let level = (mdLevel ?? "").lowercased()
            return level.isEmpty ? "md" : level
        case .crypt, .lvm, .dm:
            guard let prefix = dmUUID?.split(separator: "-", omittingEmptySubsequences: false).first, !prefix.isEmpty
            else { return rawValue }
            return prefix.lowercased().hasPrefix("part") ? "part" : prefix.lowercased()
        default:
            return rawValue
        }
    }
}

/// The one-line errors for a path given as a device that is not one. Shared by
/// the real device source and the fakes so both say exactly the same thing.
public enum DevicePathError {
    /// What a path turned out to be instead of a block device.
    public enum FileKind: String, Sendable {
        case regularFile = "a regular file", directory = "a directory"
        case characterDevice = "a character device", other = "neither a file nor a device"
    }

    public static func missing(_ path: String) -> UsageError {
        UsageError("\(path): no such file or directory")
    }

    public static func notBlockDevice(_ path: String, is kind: FileKind) -> UsageError {
        UsageError("\(path) is not a block device (it is \(kind.rawValue))")
    }

    /// A block device node whose device the kernel does not list in sysfs (a stale node).
    public static func notListed(_ path: String) -> UsageError {
        UsageError("\(path) is a block device node, but the kernel lists no such device")
    }
}
