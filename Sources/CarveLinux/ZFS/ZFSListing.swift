import CarveCore

/// What a ZFS listing gathers beside `zfs list`: the holds' tags, where datasets and
/// snapshots are mounted, the sends running, and the facts owners read.
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

    /// What owners read beside the volumes, since no file is read on ZFS: which datasets
    /// exist (Docker's and Incus's layouts) and znapzend's format property.
    static func ownerFacts(datasets: [ZFSDataset], timeZone: TimeZone) -> OwnerFacts {
        var settings = OwnerSettings()
        var formats: [String: String] = [:]
        var names = Set<String>()
        for dataset in datasets where dataset.kind != .snapshot {
            names.insert(dataset.name)
            if let format = dataset.znapzendFormat { formats[dataset.name] = format }
        }
        settings[ZnapzendFormats.self] = ZnapzendFormats(formats)
        return OwnerFacts(files: .only(names), settings: settings, timeZone: timeZone)
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
