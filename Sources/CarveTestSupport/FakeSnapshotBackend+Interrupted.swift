import CarveCore
import Foundation

/// What the fake holds of snapper's `.snapshots/N` directories besides the stored
/// snapshots' own: which hold carve's marker, which are left without a subvolume,
/// and which `.snapshots` directories belong to a config.
public struct FakeSnapperDirectories: Sendable {
    /// `.snapshots/N` paths holding `.carve-deleting`.
    public var marked: Set<String> = []
    /// `.snapshots/N` paths whose subvolume is gone (marked or not).
    public var orphans: Set<String> = []
    /// A config's `.snapshots` path and its name.
    public var configs: [String: String] = [:]
    public init() {}
}

/// Interrupted deletions on the fake: a run "killed" after deleting a snapper
/// snapshot is `orphans` + `marked` holding its directory and no stored subvolume.
extension FakeSnapshotBackend: InterruptedDeletionMarking {
    public func markDeletion(of subvolume: Subvolume, on filesystem: BtrfsFilesystem) throws -> Bool {
        try begin(.markDeletion(subvolume.id))
        guard subvolume.metadata.manager == .snapper, let path = subvolume.metadata.metadataPath else { return false }
        snapperDirectories.marked.insert(path)
        return true
    }

    public func unmarkDeletion(of subvolume: Subvolume, on filesystem: BtrfsFilesystem) throws {
        try begin(.unmarkDeletion(subvolume.id))
        if let path = subvolume.metadata.metadataPath { snapperDirectories.marked.remove(path) }
    }

    /// As the real backend: only the configs' `.snapshots` and those in `seen` are looked in.
    public func markedSnapperDirectories(on filesystem: BtrfsFilesystem, seen: [String]) throws -> MarkedDirectoryScan {
        try begin(.markedDirectories(filesystem.uuid))
        let state = snapperDirectories
        let subvolumes = filesystems.first { $0.filesystem.uuid == filesystem.uuid }?.subvolumes ?? []
        let places = Set(state.configs.keys).union(seen)
        let found = state.marked.sorted().compactMap { path -> MarkedSnapperDirectory? in
            let parent = (path as NSString).deletingLastPathComponent
            guard places.contains(parent), filesystem.mounts.contains(where: { Self.path(path, isInside: $0.mountpoint) }),
                  let number = Int((path as NSString).lastPathComponent)
            else { return nil }
            let present = subvolumes.contains { $0.metadata.metadataPath == path }
            return MarkedSnapperDirectory(path: path, config: state.configs[parent], number: number, snapshotPresent: present)
        }
        return MarkedDirectoryScan(directories: found)
    }

    public func finishInterruptedDeletion(_ directory: MarkedSnapperDirectory) throws -> Bool {
        try begin(.finishInterrupted(directory.path))
        var state = snapperDirectories
        guard state.marked.contains(directory.path), state.orphans.contains(directory.path) else {
            throw RuntimeError("not removing \(directory.path): it changed since it was found")
        }
        state.marked.remove(directory.path)
        state.orphans.remove(directory.path)
        snapperDirectories = state
        return true
    }

    public func dropDeletionMarker(_ directory: MarkedSnapperDirectory) throws {
        try begin(.dropMarker(directory.path))
        snapperDirectories.marked.remove(directory.path)
    }
}
