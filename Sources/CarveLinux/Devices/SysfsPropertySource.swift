import CarveCore
import Glibc

/// The sysfs attributes behind lsblk's queue, topology, discard, zone and hardware
/// columns, read only for the fields a listing asks for, as util-linux reads them:
/// the text with its trailing newline dropped, and an attribute a partition lacks
/// taken from its disk (util-linux's ENOENT redirect: queue/, removable, device/).
public struct SysfsPropertySource: DevicePropertySource {
    public let name = "sysfs"
    public let tree: SysfsTree
    public var fields: Set<DeviceField> { Set(SysfsPropertySource.readers.keys) }

    public init(tree: SysfsTree) { self.tree = tree }

    public func properties(of device: BlockDevice, parent: BlockDevice?) throws -> DeviceProperties? {
        try properties(of: device, parent: parent, wanted: fields)
    }

    public func properties(
        of device: BlockDevice, parent: BlockDevice?, wanted: Set<DeviceField>
    ) throws
        -> DeviceProperties?
    {
        guard let own = SysfsDirectory(tree.directoryPath(of: device.name)) else { return nil }
        let disk = device.kind == .part ? device.parent.flatMap { SysfsDirectory(tree.directoryPath(of: $0)) } : nil
        let attributes = Attributes(
            own: own, disk: disk, device: device, path: tree.directoryPath(of: device.name), host: tree.host)
        var found = DeviceProperties()
        for field in wanted { found[field] = SysfsPropertySource.readers[field]?(attributes) }
        return found
    }

    /// A device's directory and, for a partition, its disk's.
    struct Attributes {
        let own: SysfsDirectory
        let disk: SysfsDirectory?
        let device: BlockDevice
        let path: String
        let host: HostRoot

        func raw(_ name: String) -> String? { own.rawText(name) ?? disk?.rawText(name) }
        func number(_ name: String) -> UInt64? { raw(name).flatMap { UInt64($0.trimmingWhitespace) } }
        /// Hardware attributes belong to whole devices that sit on nothing, as in lsblk.
        var isHardware: Bool { device.kind != .part && device.slaves.isEmpty }
    }

    /// How each field is read: one line per column.
    static let readers: [DeviceField: @Sendable (Attributes) -> String?] = [
        .readAhead: { $0.raw("queue/read_ahead_kb") },
        .addRandom: { $0.raw("queue/add_random") },
        .hotplug: { hotplug($0.path) ? "1" : "0" },
        .state: { attributes in
            if attributes.device.mapperName != nil {
                return attributes.number("dm/suspended").map { $0 != 0 ? "suspended" : "running" }
            }
            return attributes.device.kind == .part ? nil : attributes.raw("device/state")
        },
        .scheduler: { attributes in
            guard let text = attributes.raw("queue/scheduler"), let open = text.firstIndex(of: "["),
                let close = text[open...].firstIndex(of: "]")
            else { return nil }
            return String(text[text.index(after: open)..<close])
        },
        .requestQueueSize: { $0.raw("queue/nr_requests") },
        .alignment: { $0.raw("alignment_offset") },
        .minIO: { $0.raw("queue/minimum_io_size") },
        .optimalIO: { $0.raw("queue/optimal_io_size") },
        .physicalSector: { $0.raw("queue/physical_block_size") },
        .discardGranularity: { $0.number("queue/discard_granularity").map(String.init) ?? "0" },
        .discardAlignment: { discards($0) ? $0.raw("discard_alignment") ?? "0" : "0" },
        .discardZeroes: { discards($0) ? $0.raw("queue/discard_zeroes_data") ?? "0" : "0" },
        .discardMax: { $0.number("queue/discard_max_bytes").map(String.init) },
        .writeSame: { $0.number("queue/write_same_max_bytes").map(String.init) ?? "0" },
        .zoned: { $0.raw("queue/zoned") },
        .zoneSize: { $0.number("queue/chunk_sectors").map { String($0 << 9) } },
        .zoneWriteGranularity: { $0.number("queue/zone_write_granularity").map(String.init) },
        .zoneAppend: { $0.number("queue/zone_append_max_bytes").map(String.init) },
        .zoneCount: { $0.raw("queue/nr_zones") },
        .zoneOpenMax: { $0.raw("queue/max_open_zones") ?? "0" },
        .zoneActiveMax: { $0.raw("queue/max_active_zones") ?? "0" },
        .dax: { $0.raw("queue/dax") },
        .diskSeq: { $0.raw("diskseq") },
        .vendor: { $0.isHardware ? $0.own.rawText("device/vendor") : nil },
        .revision: { $0.isHardware ? $0.own.rawText("device/rev") : nil },
        .hctl: { hctl($0) },
        .transport: { SysfsTransport.transport(of: $0) },
        .subsystems: { subsystems($0.path) },
    ]

    /// A SCSI device's H:C:T:L: the name its `device` link points to.
    static func hctl(_ attributes: Attributes) -> String? {
        guard attributes.device.kind != .part, let target = attributes.own.linkTarget("device"),
            let last = target.split(separator: "/").last, last.split(separator: ":").count == 4,
            last.split(separator: ":").allSatisfy({ Int($0) != nil })
        else { return nil }
        return String(last)
    }

    /// util-linux's SUBSYSTEMS: the `subsystem` links up the device's sysfs chain,
    /// a repeat of the one before left out ("block:scsi:pci").
    static func subsystems(_ path: String) -> String? {
        guard var chain = realPath(path) else { return nil }
        var found: [String] = []
        while !chain.isEmpty, let slash = chain.lastIndex(of: "/") {
            if let link = Files.linkTarget(chain + "/subsystem"), let name = link.split(separator: "/").last,
                found.last != String(name)
            {
                found.append(String(name))
            }
            chain = String(chain[..<slash])
        }
        return found.isEmpty ? nil : found.joined(separator: ":")
    }

    private static func discards(_ attributes: Attributes) -> Bool {
        (attributes.number("queue/discard_granularity") ?? 0) > 0
    }

    /// util-linux's hotplug test: up the device's chain of sysfs directories, the first
    /// `removable` that says "removable" (a USB or PCMCIA slot) or "fixed" decides.
    static func hotplug(_ path: String) -> Bool {
        guard var chain = realPath(path) else { return false }
        while let slash = chain.lastIndex(of: "/"), chain.hasSuffix("/sys") == false, !chain.isEmpty {
            if let text = Files.text(chain + "/removable") {
                if text.hasPrefix("fixed") { return false }
                if text.hasPrefix("removable") { return true }
            }
            chain = String(chain[..<slash])
        }
        return false
    }
}
