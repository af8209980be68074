import CarveCore
import Foundation

/// Deletion on the in-memory fake: a deleted subvolume leaves `filesystems` at once,
/// and so does the space it held (its exclusive bytes).
/// Failures are injected per snapshot with `fail(.delete(id), with: FakeSnapshotBackend.errno(16))`.
extension FakeSnapshotBackend {
    /// A failure as the real backend reports it: the C call and errno.
    public static func errno(_ code: Int32, call: String = "btrfs_util_delete_subvolume") -> SystemCallError {
        SystemCallError("cannot delete snapshot", call: call, errno: code)
    }

    /// Bytes the fake counts as used besides the subvolumes' exclusive bytes.
    public static let baseUsage: UInt64 = 1 << 30

    public func currentState(of subvolume: Volume, on filesystem: Filesystem) throws -> Volume? {
        try begin(.currentState(subvolume.id))
        guard var current = stored(subvolume.id, on: filesystem) else { return nil }
        current.metadata = subvolume.metadata
        return current
    }

    /// The stored volume's clone state: a test writes to a clone by changing what is stored.
    public func refreshingCloneState(of subvolume: Volume, on filesystem: Filesystem) throws -> Volume {
        var current = subvolume
        if let stored = stored(subvolume.id, on: filesystem) {
            current.readOnly = stored.readOnly
            current.generation = stored.generation
            current.changedSinceTaken = stored.changedSinceTaken
        }
        return current
    }

    /// The stored volumes below it, by parent id.
    public func nestedVolumes(of subvolume: Volume, on filesystem: Filesystem) throws -> [Volume] {
        let listings = filesystems.filter { $0.filesystem.uuid == filesystem.uuid }.map {
            VolumeListing(filesystem: $0.filesystem, subvolumes: $0.subvolumes, sizes: .none)
        }
        return NestedVolumes(listings).below(subvolume, on: filesystem)
    }

    public func deleteSubvolume(_ subvolume: Volume, on filesystem: Filesystem, recursive: Bool) throws {
        try begin(.delete(subvolume.id))
        var all = filesystems
        guard let index = all.firstIndex(where: { $0.filesystem.uuid == filesystem.uuid }),
            let position = all[index].subvolumes.firstIndex(where: { $0.id == subvolume.id })
        else { throw Self.errno(2) }
        let removed = all[index].subvolumes.remove(at: position)
        if recursive { all[index].subvolumes.removeAll { $0.path.hasPrefix(removed.path + "/") } }
        filesystems = all
        // As on disk: snapper's directory (timeshift's, once its last `@…` is gone) stays
        // without its subvolumes until its metadata is removed.
        if let path = removed.metadata.metadataPath,
            removed.metadata.manager == .snapper
                || (removed.metadata.manager == .timeshift
                    && !all[index].subvolumes.contains { $0.metadata.metadataPath == path })
        {
            snapperDirectories.orphans.insert(path)
        }
    }

    public func removeManagerMetadata(of subvolume: Volume, on filesystem: Filesystem) throws -> String? {
        try begin(.removeMetadata(subvolume.id))
        // As on disk: timeshift's DATE stays while another `@…` of it is there.
        if subvolume.metadata.manager == .timeshift, let path = subvolume.metadata.metadataPath,
            filesystems.contains(where: { $0.subvolumes.contains { $0.metadata.metadataPath == path } })
        {
            return nil
        }
        if let path = subvolume.metadata.metadataPath {
            var snapper = snapperDirectories
            snapper.marked.remove(path)
            snapper.orphans.remove(path)
            snapperDirectories = snapper
        }
        return subvolume.metadata.metadataPath
    }

    /// The fake's cleaner is instant: space comes back at deletion; this records the call.
    public func waitForCleanup(of ids: [UInt64], on filesystem: Filesystem) throws {
        try begin(.waitForCleanup(filesystem.uuid))
    }

    /// Used: the base plus the exclusive bytes of the subvolumes left.
    public func spaceUsage(of filesystem: Filesystem) throws -> SpaceUsage {
        try begin(.spaceUsage(filesystem.uuid))
        let held =
            filesystems.first { $0.filesystem.uuid == filesystem.uuid }?.subvolumes
            .reduce(UInt64(0)) { $0 + ($1.exclusive ?? 0) } ?? 0
        let used = Self.baseUsage + held
        return SpaceUsage(used: used, available: 100 * Self.baseUsage - used, size: 100 * Self.baseUsage)
    }

    private func stored(_ id: UInt64, on filesystem: Filesystem) -> Volume? {
        filesystems.first { $0.filesystem.uuid == filesystem.uuid }?.subvolumes.first { $0.id == id }
    }
}
