/// What the owners keep beside their snapshots, looked after around a deletion, and what
/// they read on the host before a listing is classified: each owner's room does its part
/// (CarveLinux's `OwnerRooms` sends each call to the owner of the snapshot or directory);
/// the filesystem backends only list, delete and wait.
public protocol OwnerHousekeeping: InterruptedDeletionMarking, OwnerPreparing {
    /// Removes the owner's metadata of a deleted snapshot (snapper's `.snapshots/N`,
    /// timeshift's snapshot directory), only once no volume is left inside it.
    /// Returns the path removed, or nil when there was nothing (yet) to remove.
    func removeManagerMetadata(of subvolume: Volume, on filesystem: Filesystem) throws -> String?
}

/// No owner keeps anything: what a listing-only fake has.
public struct NoOwnerHousekeeping: OwnerHousekeeping {
    public init() {}
    public func removeManagerMetadata(of subvolume: Volume, on filesystem: Filesystem) throws -> String? { nil }
    public func markDeletion(of subvolume: Volume, on filesystem: Filesystem) throws -> Bool { false }
    public func unmarkDeletion(of subvolume: Volume, on filesystem: Filesystem) throws {}
    public func markedDirectories(in scope: InterruptedDeletionScope) throws -> MarkedDirectoryScan {
        MarkedDirectoryScan()
    }
    public func finishInterruptedDeletion(_ directory: MarkedDeletionDirectory) throws -> Bool { false }
    public func dropDeletionMarker(_ directory: MarkedDeletionDirectory) throws {}
}

/// Closes the gap between deleting a snapshot's subvolume and removing its owner's
/// directory (snapper's `.snapshots/N`, timeshift's `snapshots/DATE`): before the
/// subvolume goes, a marker file (`.carve-deleting`) is written into the directory;
/// the metadata removal takes it last with the directory. A run killed in between
/// leaves the directory with the marker and without its subvolume, and the next run,
/// holding the lock, finishes it. Without this (a listing fake) no marker is left, as
/// carve did before.
public protocol InterruptedDeletionMarking: Sendable {
    /// Writes the marker into the snapshot's manager directory. Returns whether a
    /// failed deletion may take it back: snapper's always; timeshift's only when this
    /// call created it, since a marker already there may record a sibling `@…` deleted
    /// before (DATE's `@` gone, its `@home` failing): that loss must stay on record.
    /// false too when the snapshot has no such directory (nothing to mark).
    func markDeletion(of subvolume: Volume, on filesystem: Filesystem) throws -> Bool
    /// Removes the marker after a deletion that did not happen.
    func unmarkDeletion(of subvolume: Volume, on filesystem: Filesystem) throws
    /// The directories holding the marker: in every snapper config's `.snapshots`,
    /// in timeshift's `timeshift-btrfs/snapshots` at the top level, and in the
    /// scope's `seen` ones (mounted paths). Unmarked directories are never returned.
    func markedDirectories(in scope: InterruptedDeletionScope) throws -> MarkedDirectoryScan
    /// Removes the directory, only if it still holds the marker and no snapshot;
    /// false when something inside (a subvolume, a mount) keeps it.
    func finishInterruptedDeletion(_ directory: MarkedDeletionDirectory) throws -> Bool
    /// Unlinks the marker of a snapper directory whose snapshot is still there.
    func dropDeletionMarker(_ directory: MarkedDeletionDirectory) throws
}

/// The marker's file name inside a manager's snapshot directory.
public let interruptedDeletionMarkerName = ".carve-deleting"

/// A manager's snapshot directory holding carve's marker: snapper's `.snapshots/N`
/// or timeshift's `snapshots/DATE`.
public struct MarkedDeletionDirectory: Sendable, Hashable {
    /// Its mounted path, e.g. "/mnt/data/.snapshots/7".
    public var path: String
    public var manager: SnapshotManager
    /// The snapper config whose `.snapshots` holds it, when one does.
    public var config: String?
    /// snapper's number; nil for timeshift.
    public var number: Int?
    /// What of the snapshot is still there: snapper's `snapshot`, timeshift's `@…`
    /// entries (sorted). Empty: the interrupted run deleted it all.
    public var remaining: [String]
    /// The kind of filesystem it is on.
    public var kind: FilesystemKind = .btrfs

    public init(path: String, config: String?, number: Int, snapshotPresent: Bool) {
        self.path = path; manager = .snapper; self.config = config; self.number = number
        remaining = snapshotPresent ? ["snapshot"] : []
    }

    public init(timeshiftPath path: String, remaining: [String]) {
        self.path = path; manager = .timeshift; config = nil; number = nil; self.remaining = remaining
    }

    /// True when the interrupted run died before deleting all of the snapshot.
    public var snapshotPresent: Bool { !remaining.isEmpty }

    /// snapper: `CONFIG:N (path)`, or the path alone without a config.
    /// timeshift: `DATE (path)`.
    public var displayName: String {
        switch manager {
        case .timeshift: "\(path.split(separator: "/").last.map(String.init) ?? path) (\(path))"
        default: config.flatMap { config in number.map { "\(config):\($0) (\(path))" } } ?? path
        }
    }

    /// `snapper snapshot root:7 (/mnt/.snapshots/7)`, for messages.
    public var label: String { "\(manager.rawValue) snapshot \(displayName)" }
}

/// What a scan of one filesystem found, and what it could not read.
public struct MarkedDirectoryScan: Sendable {
    public var directories: [MarkedDeletionDirectory]
    public var warnings: [String]
    public init(directories: [MarkedDeletionDirectory] = [], warnings: [String] = []) {
        self.directories = directories; self.warnings = warnings
    }
}

/// A filesystem a run works on and, for each owner that marks, the directories holding
/// its snapshots' directories that the listing showed (snapper's `.snapshots`,
/// timeshift's `snapshots`), as mounted paths.
public struct InterruptedDeletionScope: Sendable {
    public var filesystem: Filesystem
    public var seen: [SnapshotManager: [String]]
    public init(filesystem: Filesystem, seen: [SnapshotManager: [String]] = [:]) {
        self.filesystem = filesystem; self.seen = seen
    }

    /// One scope per listing: a directory no config or fixed place names is found
    /// through the snapshots of it that are listed.
    public static func from(_ listings: [VolumeListing]) -> [InterruptedDeletionScope] {
        let marking = SnapshotOwners.all.filter(\.marksDeletion).map(\.manager)
        return listings.map { listing in
            InterruptedDeletionScope(filesystem: listing.filesystem, seen: parents(in: listing, of: marking))
        }
    }

    /// For each of `managers`, the parent directories of its snapshots' metadata, each
    /// once, in listing order. One pass, the fields read in place: a pass per owner that
    /// marks, copying each of three thousand (fat) subvolumes, cost more than the plan.
    private static func parents(
        in listing: VolumeListing, of managers: [SnapshotManager]
    ) -> [SnapshotManager: [String]] {
        var parents = [[String]](repeating: [], count: managers.count)
        listing.subvolumes.withUnsafeBufferPointer { subvolumes in
            for index in subvolumes.indices {
                guard let owner = managers.firstIndex(of: subvolumes[index].metadata.manager),
                    let path = subvolumes[index].metadata.metadataPath, let slash = path.lastIndex(of: "/")
                else { continue }
                let parent = String(path[..<slash])
                if !parent.isEmpty, !parents[owner].contains(parent) { parents[owner].append(parent) }
            }
        }
        return Dictionary(uniqueKeysWithValues: zip(managers, parents))
    }
}
