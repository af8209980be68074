import Glibc
import CarveCore

/// LVM thin snapshots, listed read-only: one filesystem per thin pool (`VG/POOL`), its
/// thin volumes the volumes, a snapshot the ones with an origin; owners classify them as
/// any backend's (none lives on LVM yet, so they are plain). It does not delete: this
/// kernel has no device-mapper to try `lvremove` on, so it registers as a lister.
public struct LVMThinBackend: SnapshotListing {
    /// Runs `lvs` with `LVMReport.arguments` and returns its JSON; nil when lvm2 is not installed.
    public typealias ReportRunner = @Sendable ([String]) throws -> String?

    let report: ReportRunner

    public init(report: @escaping ReportRunner = LVMThinBackend.runLVS) { self.report = report }

    /// Every thin pool that holds thin volumes.
    public func mountedFilesystems() throws -> [Filesystem] {
        let volumes = try logicalVolumes()
        var pools: [String] = []
        for volume in volumes where volume.isThinVolume && !volume.pool.isEmpty {
            let name = volume.group + "/" + volume.pool
            if !pools.contains(name) { pools.append(name) }
        }
        return pools.map { name in
            let uuid = volumes.first { $0.group + "/" + $0.name == name }?.uuid ?? name
            return Filesystem(
                kind: .lvmThin, uuid: uuid, devices: [],
                mounts: [FilesystemMount(mountpoint: name, subvolumePath: "/", subvolumeID: 0)])
        }
    }

    /// A thin pool named `VG/POOL`; anything else is not LVM's.
    public func filesystem(containing path: String) throws -> Filesystem {
        guard let pool = try mountedFilesystems().first(where: { $0.mountpoint == path }) else {
            throw RuntimeError("\(path) is not an LVM thin pool (VG/POOL)")
        }
        return pool
    }

    public func locate(_ path: String, among filesystems: [Filesystem]) -> VolumeLocation? { nil }

    /// The thin volumes of the pool, numbered in report order; sizes are what the pool
    /// allocated to each (referenced), never a guess at what deleting it frees.
    public func subvolumes(of filesystem: Filesystem, sizes: SizeMode) throws -> VolumeListing {
        let volumes = try logicalVolumes()
        let inPool = volumes.filter { $0.isThinVolume && $0.group + "/" + $0.pool == filesystem.mountpoint }
        let uuids = Dictionary(
            volumes.map { ($0.group + "/" + $0.name, $0.uuid) }, uniquingKeysWith: { first, _ in first })
        let listed = inPool.enumerated().map { index, volume in
            let origin = volume.origin.isEmpty ? nil : volume.group + "/" + volume.origin
            var listed = Volume(
                id: UInt64(index + 1), parentID: 0, path: volume.group + "/" + volume.name,
                mountedPath: "/dev/\(volume.group)/\(volume.name)", uuid: SubvolumeUUID(volume.uuid),
                parentUUID: origin.flatMap { uuids[$0] }.map { SubvolumeUUID($0) }, created: volume.created,
                readOnly: volume.isReadOnly,
                isSnapshot: origin != nil, sourcePath: origin)
            if sizes != .none { listed.referenced = volume.dataPercent.map { UInt64(Double(volume.size) * $0 / 100) } }
            return listed
        }
        var listing = VolumeListing(filesystem: filesystem, subvolumes: listed, sizes: .none)
        // Nothing to read beside a thin volume: its device node holds a filesystem, not files.
        listing.ownerFacts = OwnerFacts(files: .only([]), timeZone: .current)
        if sizes != .none {
            listing.sizeNote =
                "\(filesystem.mountpoint): LVM reports what the pool allocated to each thin volume (RFER), not what deleting it frees"
        }
        return listing
    }

    /// lvs names an origin, not an id: the source stays named by its origin's name, as
    /// the listing has always shown it, not linked to the origin's row.
    public func finishListing(_ listing: inout VolumeListing, sizes: SizeMode) throws {
        for index in listing.subvolumes.indices { listing.subvolumes[index].sourceID = nil }
    }

    private func logicalVolumes() throws -> [LogicalVolume] {
        guard let text = try report(LVMReport.arguments) else { return [] }
        return try LVMReport.parse(text)
    }

    /// `lvs` as root; nil when lvm2 is not installed, so a machine without LVM has no pools.
    public static func runLVS(_ arguments: [String]) throws -> String? {
        guard ChildProcess.systemTool("lvs") != nil else { return nil }
        return try ToolRun.output(arguments)
    }
}
