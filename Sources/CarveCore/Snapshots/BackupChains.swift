/// The send/receive chains between the mounted filesystems, as btrbk and any
/// `btrfs send -p` workflow keep them: the next incremental send needs, on the
/// source, the newest snapshot whose copy was received elsewhere, and on the
/// target, that copy. Deleting either one makes the next backup a full one.
///
/// A received subvolume carries `received_uuid`: the UUID of the snapshot it was
/// sent from. Its own parent UUID names the previous backup on the target (the
/// parent the kernel snapshotted to apply the stream), not what it was taken of.
public enum BackupChains {
    /// Links `listings`, which must hold every mounted filesystem that may hold either
    /// side of a chain: a received snapshot's source becomes the snapshot its
    /// `received_uuid` names (when mounted), and the two ends of each chain get
    /// `chainParent` (the reason they are kept, see `Protection.chainParent`).
    public static func link(_ listings: inout [VolumeListing]) {
        // Without a received subvolume anywhere there is no chain: most machines, and
        // the index of ten thousand UUIDs is then not worth building.
        guard listings.contains(where: { $0.subvolumes.contains { $0.receivedUUID != nil } }) else { return }
        let index = Index(listings)
        for (listing, volume) in index.received {
            let received = listings[listing].subvolumes[volume]
            guard let sent = received.receivedUUID.flatMap({ index.byUUID[$0] }) else { continue }
            let origin = listings[sent.listing]
            listings[listing].subvolumes[volume].receivedSourcePath = origin.displayPath(of: sent.volume)
        }
        markSources(&listings, index)
        markTargets(&listings, index)
    }

    /// `listings` with their send/receive chains marked (`BackupChains`), which takes the
    /// listings of every other mounted btrfs too: the copy that makes a snapshot a
    /// chain's parent is on another filesystem. One that cannot be listed is a warning.
    public static func linked(_ listings: [VolumeListing], backend: any SnapshotBackend) -> [VolumeListing] {
        let inScope = Set(listings.map(\.filesystem.uuid))
        var all = listings
        var warnings: [String] = []
        // What another filesystem may hold of a chain: copies received from a listed
        // snapshot, and the snapshots a listed backup was received from. Gathered only
        // when another btrfs is mounted: hashing ten thousand UUIDs for none cost 5% of a listing.
        var sent = Set<SubvolumeUUID>(), sources = Set<SubvolumeUUID>()
        func gather() {
            // Fields read in place through the buffer, not each of ten thousand volumes copied whole.
            for listing in listings {
                listing.subvolumes.withUnsafeBufferPointer { volumes in
                    for index in volumes.indices {
                        if volumes[index].isSnapshot { sent.insert(volumes[index].uuid) }
                        if let received = volumes[index].receivedUUID { sources.insert(received) }
                    }
                }
            }
        }
        do {
            // Only btrfs sends and receives: other kinds' backends are not asked (no lvs run).
            let others = try backend.mountedFilesystems(ofKind: .btrfs).filter { !inScope.contains($0.uuid) }
            if !others.isEmpty { gather() }
            for filesystem in others {
                do {
                    all.append(try backend.chainRelatives(on: filesystem, receivedFrom: sent, withUUIDs: sources))
                } catch {
                    warnings.append(
                        "cannot look for backups on \(filesystem.mountpoint) (\(error)): chains to it are not protected"
                    )
                }
            }
        } catch {
            warnings.append("cannot list the mounted filesystems (\(error)): send/receive chains are not protected")
        }
        BackupChains.link(&all)
        var linked = Array(all.prefix(listings.count))
        if !linked.isEmpty { linked[0].warnings += warnings }
        return linked
    }

    /// Source side: per source subvolume, the newest snapshot that has a received copy.
    private static func markSources(_ listings: inout [VolumeListing], _ index: Index) {
        for listingIndex in listings.indices {
            var newest: [SubvolumeUUID: Int] = [:]
            let volumes = listings[listingIndex].subvolumes
            for position in volumes.indices where index.copies[volumes[position].uuid] != nil {
                guard let source = volumes[position].parentUUID else { continue }
                if newest[source].map({ isNewer(volumes[position], than: volumes[$0]) }) ?? true {
                    newest[source] = position
                }
            }
            for position in newest.values {
                let copy = index.copies[volumes[position].uuid]!.first!
                listings[listingIndex].subvolumes[position].chainParent =
                    "parent of the incremental backup at \(listings[copy.listing].displayPath(of: copy.volume))"
            }
        }
    }

    /// Target side: per source, the newest backup received from it.
    private static func markTargets(_ listings: inout [VolumeListing], _ index: Index) {
        for listingIndex in listings.indices {
            var newest: [String: Int] = [:]
            let volumes = listings[listingIndex].subvolumes
            let chains = ReceivedChains(volumes)
            for position in volumes.indices where volumes[position].receivedUUID != nil {
                let group = groupKey(of: position, in: volumes, chains: chains, index: index, listings: listings)
                if newest[group].map({ isNewer(volumes[position], than: volumes[$0]) }) ?? true {
                    newest[group] = position
                }
            }
            for position in newest.values where listings[listingIndex].subvolumes[position].chainParent == nil {
                let from = volumes[position].receivedSourcePath.map { " from \($0)" } ?? ""
                listings[listingIndex].subvolumes[position].chainParent =
                    "newest backup received\(from): the parent of the next incremental backup"
            }
        }
    }

    /// Which backups belong to one source: btrbk's name without its timestamp (in its
    /// directory); else the source subvolume of the snapshot it was sent from, when that
    /// is mounted; else the chain of incremental receives it belongs to.
    private static func groupKey(
        of position: Int, in volumes: [Volume], chains: ReceivedChains, index: Index, listings: [VolumeListing]
    ) -> String {
        let volume = volumes[position]
        if volume.metadata.manager == .btrbk, let name = volume.metadata.name,
            let base = BtrbkName.parse(name, timeZone: .utc)?.subvolume
        {
            let directory = volume.path.split(separator: "/").dropLast().joined(separator: "/")
            return "btrbk:\(directory)/\(base)"
        }
        if let sent = volume.receivedUUID.flatMap({ index.byUUID[$0] }),
            let source = listings[sent.listing].subvolumes[sent.volume].parentUUID
        {
            return "source:\(source)"
        }
        return "chain:\(chains.root(of: position))"
    }

    /// Newer by date, then by generation (two backups in the same second).
    private static func isNewer(_ a: Volume, than b: Volume) -> Bool {
        a.created != b.created ? a.created > b.created : a.generation > b.generation
    }

    /// Where each UUID and each received UUID is, over all listings.
    private struct Index {
        var byUUID: [SubvolumeUUID: (listing: Int, volume: Int)] = [:]
        /// For a sent snapshot's UUID: the subvolumes received from it.
        var copies: [SubvolumeUUID: [(listing: Int, volume: Int)]] = [:]
        var received: [(listing: Int, volume: Int)] = []

        init(_ listings: [VolumeListing]) {
            for listing in listings.indices {
                for volume in listings[listing].subvolumes.indices {
                    let subvolume = listings[listing].subvolumes[volume]
                    byUUID[subvolume.uuid] = (listing, volume)
                    guard let receivedUUID = subvolume.receivedUUID else { continue }
                    copies[receivedUUID, default: []].append((listing, volume))
                    received.append((listing, volume))
                }
            }
        }
    }
}

/// The received subvolumes of one filesystem joined by parent UUID: an incremental
/// receive snapshots the previous backup, so each chain of backups is one set.
struct ReceivedChains {
    private var parent: [Int]

    init(_ volumes: [Volume]) {
        parent = Array(volumes.indices)
        var byUUID: [SubvolumeUUID: Int] = [:]
        for index in volumes.indices where volumes[index].receivedUUID != nil { byUUID[volumes[index].uuid] = index }
        for index in volumes.indices where volumes[index].receivedUUID != nil {
            if let previous = volumes[index].parentUUID.flatMap({ byUUID[$0] }) { union(index, previous) }
        }
    }

    func root(of index: Int) -> Int {
        var index = index
        while parent[index] != index { index = parent[index] }
        return index
    }

    private mutating func union(_ a: Int, _ b: Int) {
        let (rootA, rootB) = (root(of: a), root(of: b))
        if rootA != rootB { parent[max(rootA, rootB)] = min(rootA, rootB) }
    }
}

extension VolumeListing {
    /// A subvolume's path as carve shows it: mounted, or `<FS_TREE>/…` on the filesystem's mount.
    func displayPath(of position: Int) -> String {
        let volume = subvolumes[position]
        return volume.mountedPath ?? "<FS_TREE>/\(volume.path) on \(filesystem.mountpoint)"
    }
}
