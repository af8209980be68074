import CarveCore
import Foundation

/// What the fake holds of snapper's `.snapshots/N` and timeshift's `snapshots/DATE`
/// directories besides the stored snapshots' own: which hold carve's marker, which
/// are left without a subvolume, and which `.snapshots` directories belong to a config.
public struct FakeSnapperDirectories: Sendable {
    /// `.snapshots/N` and `snapshots/DATE` paths holding `.carve-deleting`.
    public var marked: Set<String> = []
    /// `.snapshots/N` and `snapshots/DATE` paths whose subvolumes are all gone (marked or not).
    public var orphans: Set<String> = []
    /// A config's `.snapshots` path and its name.
    public var configs: [String: String] = [:]
    public init() {}
}

/// Interrupted deletions on the fake: a run "killed" after deleting a snapper
/// snapshot (or a timeshift snapshot's last `@…`) is `orphans` + `marked` holding its
/// directory and no stored subvolume. Timeshift's `snapshots` are looked for at
/// `timeshift-btrfs/snapshots` of the top level, as on disk.
extension FakeSnapshotBackend {
    public func markDeletion(of subvolume: Volume, on filesystem: Filesystem) throws -> Bool {
        try begin(.markDeletion(subvolume.id))
        guard let path = subvolume.metadata.metadataPath else { return false }
        switch subvolume.metadata.manager {
        case .snapper:
            snapperDirectories.marked.insert(path)
            return true
        case .timeshift:
            return snapperDirectories.marked.insert(path).inserted
        default:
            return false
        }
    }

    public func unmarkDeletion(of subvolume: Volume, on filesystem: Filesystem) throws {
        try begin(.unmarkDeletion(subvolume.id))
        if let path = subvolume.metadata.metadataPath { snapperDirectories.marked.remove(path) }
    }

    /// As the real backend: only the configs' `.snapshots`, timeshift's place and those in the scope are looked in.
    public func markedDirectories(in scope: InterruptedDeletionScope) throws -> MarkedDirectoryScan {
        let filesystem = scope.filesystem
        try begin(.markedDirectories(filesystem.uuid))
        let state = snapperDirectories
        let subvolumes = filesystems.first { $0.filesystem.uuid == filesystem.uuid }?.subvolumes ?? []
        let snapperPlaces = Set(state.configs.keys).union(scope.snapperDirectories)
        let timeshiftPlaces = Set(scope.timeshiftDirectories)
            .union([filesystem.mountedPath(ofTopLevelPath: "timeshift-btrfs/snapshots")].compactMap { $0 })
        let found = state.marked.sorted().compactMap { path -> MarkedDeletionDirectory? in
            let parent = PathText.parent(of: path)
            guard filesystem.mounts.contains(where: { Self.path(path, isInside: $0.mountpoint) }) else { return nil }
            let inside = subvolumes.filter { $0.metadata.metadataPath == path }
            if timeshiftPlaces.contains(parent) {
                let remaining = inside.map { String($0.path.split(separator: "/").last ?? "") }
                return MarkedDeletionDirectory(timeshiftPath: path, remaining: remaining.sorted())
            }
            guard snapperPlaces.contains(parent), let number = Int(PathText.lastComponent(of: path)) else { return nil }
            return MarkedDeletionDirectory(
                path: path, config: state.configs[parent], number: number, snapshotPresent: !inside.isEmpty)
        }
        return MarkedDirectoryScan(directories: found)
    }

    public func finishInterruptedDeletion(_ directory: MarkedDeletionDirectory) throws -> Bool {
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

    public func dropDeletionMarker(_ directory: MarkedDeletionDirectory) throws {
        try begin(.dropMarker(directory.path))
        snapperDirectories.marked.remove(directory.path)
    }
}
