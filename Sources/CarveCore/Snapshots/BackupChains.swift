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
    /// `listings` is taken, not copied: a chain marked in a listing its caller still held
    /// copied the whole listing, and the listings returned were copied out of all of them.
    public static func linked(_ listings: consuming [VolumeListing], backend: any SnapshotBackend) -> [VolumeListing] {
        let inScope = Set(listings.map(\.filesystem.uuid))
        let listed = listings.count
        var all = consume listings
        var warnings: [String] = []
        // What another filesystem may hold of a chain: copies received from a listed
        // snapshot, and the snapshots a listed backup was received from. Gathered only
        // when another btrfs is mounted, and as lists: the backend sorts their keys, and
        // a set of ten thousand UUIDs made first cost as much as the rest of the lookup.
        var sent: [SubvolumeUUID] = [], sources: [SubvolumeUUID] = []
        func gather() {
            // Fields read in place through the buffer, not each of ten thousand volumes copied whole.
            for listing in all.indices {
                all[listing].subvolumes.withUnsafeBufferPointer { volumes in
                    for index in volumes.indices {
                        if volumes[index].isSnapshot { sent.append(volumes[index].uuid) }
                        if let received = volumes[index].receivedUUID { sources.append(received) }
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
        all.removeLast(all.count - listed)
        if !all.isEmpty { all[0].warnings += warnings }
        return all
    }

    /// Source side: per source subvolume, the newest snapshot that has a received copy.
    /// The marks are found first and set after: a volume set while the listing's array
    /// was still held to read it copied all ten thousand.
    private static func markSources(_ listings: inout [VolumeListing], _ index: Index) {
        for listingIndex in listings.indices {
            for (position, note) in sourceMarks(listings, listingIndex, index) {
                listings[listingIndex].subvolumes[position].chainParent = note
            }
        }
    }

    private static func sourceMarks(
        _ listings: [VolumeListing], _ listingIndex: Int, _ index: Index
    ) -> [(position: Int, note: String)] {
        var newest: [SubvolumeUUID: Int] = [:]
        // Read in place: each volume copied to ask for its UUID cost more than the lookup.
        listings[listingIndex].subvolumes.withUnsafeBufferPointer { volumes in
            for position in volumes.indices where index.copies[volumes[position].uuid] != nil {
                guard let source = volumes[position].parentUUID else { continue }
                if newest[source].map({ isNewer(volumes[position], than: volumes[$0]) }) ?? true {
                    newest[source] = position
                }
            }
        }
        return newest.values.map { position in
            let copy = index.copies[listings[listingIndex].subvolumes[position].uuid]!.first!
            return (
                position, "parent of the incremental backup at \(listings[copy.listing].displayPath(of: copy.volume))"
            )
        }
    }

    /// Target side: per source, the newest backup received from it.
    private static func markTargets(_ listings: inout [VolumeListing], _ index: Index) {
        for listingIndex in listings.indices {
            for (position, note) in targetMarks(listings, listingIndex, index)
            where listings[listingIndex].subvolumes[position].chainParent == nil {
                listings[listingIndex].subvolumes[position].chainParent = note
            }
        }
    }

    private static func targetMarks(
        _ listings: [VolumeListing], _ listingIndex: Int, _ index: Index
    ) -> [(position: Int, note: String)] {
        let volumes = listings[listingIndex].subvolumes
        // Most listings hold no received backup: no chains to join among their volumes.
        guard index.received.contains(where: { $0.listing == listingIndex }) else { return [] }
        var newest: [String: Int] = [:]
        let chains = ReceivedChains(volumes)
        for position in volumes.indices where volumes[position].receivedUUID != nil {
            let group = groupKey(of: position, in: volumes, chains: chains, index: index, listings: listings)
            if newest[group].map({ isNewer(volumes[position], than: volumes[$0]) }) ?? true {
                newest[group] = position
            }
        }
        return newest.values.map { position in
            let from = volumes[position].receivedSourcePath.map { " from \($0)" } ?? ""
            return (position, "newest backup received\(from): the parent of the next incremental backup")
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
            byUUID.reserveCapacity(listings.reduce(0) { $0 + $1.subvolumes.count })
            for listing in listings.indices {
                // Fields read in place: each of ten thousand (fat) volumes copied cost
                // more than hashing its UUID.
                listings[listing].subvolumes.withUnsafeBufferPointer { volumes in
                    for volume in volumes.indices {
                        byUUID[volumes[volume].uuid] = (listing, volume)
                        guard let receivedUUID = volumes[volume].receivedUUID else { continue }
                        copies[receivedUUID, default: []].append((listing, volume))
                        received.append((listing, volume))
                    }
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
