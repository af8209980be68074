import CarveCore

/// What a ZFS listing gathers beside `zfs list`: the holds' tags, where datasets and
/// snapshots are mounted, the sends running; then the owners' verdicts and the
/// replication bases.
struct ZFSListing {
    let backend: ZFSBackend
    let datasets: [ZFSDataset]

    /// The volumes within `root`, with their holds, mounts and sends.
    func volumes(within root: String) throws -> [Volume] {
        var input = ZFSVolumes(datasets: datasets)
        let held = datasets.filter { $0.userrefs > 0 && ZFSName.isWithin($0.name, root) }.map(\.name)
        input.holdTags = try holdTags(of: held)
        (input.datasetMounts, input.snapshotMounts) = ZFSMounts.places(try backend.mountTable.mounts())
        input.sends = backend.sends()
        return input.volumes(within: root)
    }

    /// `zfs holds -H` of the held snapshots, in as few runs as the argument limit allows;
    /// none where the dialect cannot list holds (zfs-fuse: the tags stay unknown).
    func holdTags(of snapshots: [String]) throws -> [String: [String]] {
        guard !snapshots.isEmpty, try backend.tool.currentDialect().holdsScripted else { return [:] }
        var tags: [String: [String]] = [:]
        for chunk in ZFSArguments.chunks(snapshots) {
            tags.merge(try ZFSCommandOutput.holds(backend.tool.output(["zfs", "holds", "-H"] + chunk))) { a, _ in a }
        }
        return tags
    }

    /// The owners' verdicts (the ZFS tools' names, Docker's and Incus's layouts, znapzend's
    /// property) and the replication bases; the warnings.
    static func classify(_ volumes: inout [Volume], datasets: [ZFSDataset], timeZone: TimeZone) -> [String] {
        var settings = OwnerSettings()
        var formats: [String: String] = [:]
        var names = Set<String>()
        for dataset in datasets where dataset.kind != .snapshot {
            names.insert(dataset.name)
            if let format = dataset.znapzendFormat { formats[dataset.name] = format }
        }
        settings[ZnapzendFormats.self] = ZnapzendFormats(formats)
        let datasetNames = names
        let classifier = SnapshotClassifier(
            context: OwnerContext(
                timeZone: timeZone, readFile: { _, _ in nil }, probe: { datasetNames.contains($0) }, settings: settings),
            owners: SnapshotOwners.all(for: .zfs))
        let warnings = classifier.classify(&volumes)
        // A dataset is never a snapshot, whatever lies in its name.
        for index in volumes.indices where volumes[index].zfs == nil { volumes[index].isSnapshot = false }
        ZFSReplicationBases.mark(&volumes)
        return warnings
    }
}

/// Where ZFS datasets and snapshots are mounted, from the mount table: OpenZFS mounts
/// them as type `zfs`, zfs-fuse as `fuse.zfs`, each with its name as the source.
enum ZFSMounts {
    static func isZFS(_ mount: MountEntry) -> Bool { mount.fsType == "zfs" || mount.fsType == "fuse.zfs" }

    static func places(_ mounts: [MountEntry]) -> (datasets: [String: String], snapshots: [String: [String]]) {
        var datasets: [String: String] = [:]
        var snapshots: [String: [String]] = [:]
        for mount in mounts where isZFS(mount) {
            if mount.source.contains("@") {
                snapshots[mount.source, default: []].append(mount.mountpoint)
            } else if datasets[mount.source] == nil {
                datasets[mount.source] = mount.mountpoint
            }
        }
        return (datasets, snapshots)
    }
}

/// Names passed to one `zfs` run, kept under the kernel's limit on the arguments of a
/// program (ARG_MAX, with room for the environment) and on any one argument
/// (MAX_ARG_STRLEN, 128 KiB: a comma list `fs@a,b,c` is one argument).
enum ZFSArguments {
    static let totalLimit = 1 << 20
    static let oneLimit = (1 << 17) - 1

    /// `names` in runs of arguments whose lengths add up to less than the total limit.
    static func chunks(_ names: [String], limit: Int = totalLimit) -> [[String]] {
        var chunks: [[String]] = []
        var current: [String] = []
        var size = 0
        for name in names {
            let cost = name.utf8.count + 1 + MemoryLayout<UnsafePointer<CChar>>.size
            if !current.isEmpty, size + cost > limit {
                chunks.append(current)
                current = []
                size = 0
            }
            current.append(name)
            size += cost
        }
        if !current.isEmpty { chunks.append(current) }
        return chunks
    }
}
