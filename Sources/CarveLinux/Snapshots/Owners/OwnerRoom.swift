import CarveCore

/// An owner's room on a Linux host: what it reads before a listing (snapper's configs)
/// and what it keeps beside its snapshots (the deletion marker, the metadata removed
/// after the snapshot, the sweep of what an interrupted run left). An owner of CarveCore
/// takes one by conforming here, in its own folder (`extension SnapperOwner: OwnerRoom`
/// in `Snapper/`); `OwnerRooms` finds it among `SnapshotOwners.all`, so that list stays
/// the only registration. Every requirement has a default that does nothing: an owner
/// that keeps nothing on disk (an engine, btrbk) needs no room.
protocol OwnerRoom: SnapshotOwner {
    /// Adds what recognition on `filesystem` needs to know to `settings`; returns warnings.
    func prepare(_ settings: inout OwnerSettings, for filesystem: Filesystem, _ rooms: OwnerRooms) -> [String]
    /// Writes the marker into the snapshot's directory `directory` (`marksDeletion`).
    /// Returns whether a failed deletion may take it back (see `markDeletion`).
    func markDeletion(of subvolume: Volume, in directory: String) throws -> Bool
    /// Removes the snapshot's metadata at `path` once the snapshot is gone; the path
    /// removed, or nil when something still keeps it.
    func removeMetadata(of subvolume: Volume, at path: String, _ rooms: OwnerRooms) throws -> String?
    /// The owner's marked directories on the scope's filesystem.
    func markedDirectories(in scope: InterruptedDeletionScope, _ rooms: OwnerRooms) -> MarkedDirectoryScan
    /// Removes a marked directory whose snapshot is gone; false when something keeps it.
    func finish(_ directory: MarkedDeletionDirectory, _ rooms: OwnerRooms) throws -> Bool
}

extension OwnerRoom {
    func prepare(_ settings: inout OwnerSettings, for filesystem: Filesystem, _ rooms: OwnerRooms) -> [String] { [] }
    func markDeletion(of subvolume: Volume, in directory: String) throws -> Bool { false }
    func removeMetadata(of subvolume: Volume, at path: String, _ rooms: OwnerRooms) throws -> String? {
        try ManagerMetadataRemoval.remove(path)
    }
    func markedDirectories(in scope: InterruptedDeletionScope, _ rooms: OwnerRooms) -> MarkedDirectoryScan {
        MarkedDirectoryScan()
    }
    func finish(_ directory: MarkedDeletionDirectory, _ rooms: OwnerRooms) throws -> Bool {
        try ManagerMetadataRemoval.remove(directory.path) != nil
    }
}

extension MarkedDirectoryScan {
    /// Adds what `scan` finds in `path`, or a warning when it cannot look there.
    mutating func look(in path: String, _ scan: (String) throws -> [MarkedDeletionDirectory]) {
        do {
            directories += try scan(path)
        } catch {
            warnings.append("cannot look for deletions left unfinished in \(path): \(error)")
        }
    }
}
