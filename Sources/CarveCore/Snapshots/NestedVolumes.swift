/// The subvolumes nested below a snapshot, from listings of their filesystems: what
/// `--recursive` deletes with it, each of which must pass the rules as a snapshot of
/// its own would.
public struct NestedVolumes: Sendable {
    /// Filesystem UUID → parent id → the volumes directly inside it.
    private var children: [String: [UInt64: [Volume]]] = [:]

    public init(_ listings: [VolumeListing]) {
        for listing in listings {
            var byParent: [UInt64: [Volume]] = [:]
            for volume in listing.subvolumes { byParent[volume.parentID, default: []].append(volume) }
            children[listing.filesystem.uuid] = byParent
        }
    }

    /// Every volume below `volume`, however deep, parents before what they hold.
    public func below(_ volume: Volume, on filesystem: Filesystem) -> [Volume] {
        guard let byParent = children[filesystem.uuid] else { return [] }
        var found: [Volume] = []
        var pending = [volume.id]
        var visited: Set<UInt64> = [volume.id]
        while let id = pending.popLast() {
            for child in byParent[id] ?? [] where visited.insert(child.id).inserted {
                found.append(child)
                pending.append(child.id)
            }
        }
        return found
    }
}
