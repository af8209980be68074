import CBlkid
import CarveCore
import Glibc

/// A libblkid low-level probe on one device, opened read-only; freed when dropped.
final class BlkidProbe {
    let handle: blkid_probe
    let path: String

    /// Opens `path` read-only (libblkid never writes during a probe).
    init(path: String) throws(SystemCallError) {
        guard let handle = blkid_new_probe_from_filename(path) else {
            throw SystemCallError("cannot probe \(path)", call: "blkid_new_probe_from_filename", errno: errno)
        }
        self.handle = handle
        self.path = path
    }

    deinit { blkid_free_probe(handle) }

    /// Looks for filesystems (type, label, UUID, version) and partition tables with entry details.
    func enableContentProbing(superblocks: Bool = true) throws(SystemCallError) {
        if superblocks {
            try check(blkid_probe_enable_superblocks(handle, 1), "blkid_probe_enable_superblocks")
            let flags = BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID | BLKID_SUBLKS_TYPE | BLKID_SUBLKS_VERSION
            try check(blkid_probe_set_superblocks_flags(handle, flags), "blkid_probe_set_superblocks_flags")
        } else {
            try check(blkid_probe_enable_superblocks(handle, 0), "blkid_probe_enable_superblocks")
        }
        try check(blkid_probe_enable_partitions(handle, 1), "blkid_probe_enable_partitions")
        try check(blkid_probe_set_partitions_flags(handle, BLKID_PARTS_ENTRY_DETAILS), "blkid_probe_set_partitions_flags")
    }

    /// Runs `blkid_do_safeprobe`: false when nothing (or something ambiguous) was found.
    func safeProbe() throws(SystemCallError) -> Bool {
        let result = blkid_do_safeprobe(handle)
        if result < 0 && result != -2 {
            throw SystemCallError("cannot probe \(path)", call: "blkid_do_safeprobe", errno: errno)
        }
        return result == 0
    }

    /// A value found by the probe, e.g. "TYPE" or "PART_ENTRY_UUID".
    func value(_ name: String) -> String? {
        var data: UnsafePointer<CChar>?
        guard blkid_probe_lookup_value(handle, name, &data, nil) == 0, let data else { return nil }
        return String(cString: data)
    }

    private func check(_ result: Int32, _ call: String) throws(SystemCallError) {
        guard result == 0 else { throw SystemCallError("cannot probe \(path)", call: call, errno: errno) }
    }
}

/// Properties from probing the device itself with libblkid: what udev lacks,
/// and everything when udevd is not running. Needs read access to the device node.
public struct BlkidPropertySource: DevicePropertySource {
    public let name = "blkid"
    public let fields: Set<DeviceField> = [
        .fsType, .fsVersion, .uuid, .label, .partUUID, .partType, .partLabel, .partNumber, .ptType, .ptUUID,
    ]

    public init() {}

    public func properties(of device: BlockDevice, parent: BlockDevice?) throws -> DeviceProperties? {
        // An empty device (an unused loop, a drive with no medium) has nothing to probe.
        guard device.size > 0 else { return nil }
        let probe = try BlkidProbe(path: device.path)
        try probe.enableContentProbing()
        guard try probe.safeProbe() else { return try tableOfParent(parent) }
        var found = DeviceProperties(
            fsType: probe.value("TYPE"), fsVersion: probe.value("VERSION"), uuid: probe.value("UUID"),
            label: probe.value("LABEL"), partUUID: probe.value("PART_ENTRY_UUID"),
            partType: probe.value("PART_ENTRY_TYPE"), partLabel: probe.value("PART_ENTRY_NAME"),
            partNumber: probe.value("PART_ENTRY_NUMBER").flatMap { Int($0) },
            ptType: probe.value("PTTYPE") ?? probe.value("PART_ENTRY_SCHEME"), ptUUID: probe.value("PTUUID")
        )
        // A partition's PTTYPE and PTUUID are its disk's: probe the disk's table, as lsblk does.
        if device.kind == .part, found.ptUUID == nil || found.ptType == nil, let table = try tableOfParent(parent) {
            found = found.filling(from: table)
        }
        return found
    }

    /// The partition table type and identifier of a partition's disk: as the
    /// inventory already knows them, else probed on the disk.
    private func tableOfParent(_ parent: BlockDevice?) throws -> DeviceProperties? {
        guard let parent, parent.size > 0 else { return nil }
        if parent.properties.ptType != nil, parent.properties.ptUUID != nil {
            return DeviceProperties(ptType: parent.properties.ptType, ptUUID: parent.properties.ptUUID)
        }
        let probe = try BlkidProbe(path: parent.path)
        try probe.enableContentProbing(superblocks: false)
        guard try probe.safeProbe() else { return nil }
        return DeviceProperties(ptType: probe.value("PTTYPE"), ptUUID: probe.value("PTUUID"))
    }
}
