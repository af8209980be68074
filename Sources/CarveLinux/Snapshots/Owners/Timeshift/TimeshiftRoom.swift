import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// timeshift's room: a snapshot's `snapshots/DATE` goes once its last `@…` is gone; the
/// marker goes into DATE, and one already there is kept (it may record a sibling `@…`
/// deleted before).
extension TimeshiftOwner: OwnerRoom {
    /// Where timeshift keeps its snapshots, from the top level (it mounts the top level).
    static let snapshots = "timeshift-btrfs/snapshots"

    func markDeletion(of subvolume: Volume, in directory: String) throws -> Bool {
        try DeletionMarkerDirectory.writeMarker(
            in: directory, text: DeletionMarkerDirectory.text(subvolume) + (subvolume.mountedPath ?? directory) + "\n",
            keepingExisting: true)
    }

    /// In `timeshift-btrfs/snapshots` at the top level, and in those the listing showed.
    func markedDirectories(in scope: InterruptedDeletionScope, _ rooms: OwnerRooms) -> MarkedDirectoryScan {
        let filesystem = scope.filesystem
        var places = filesystem.mountedPath(ofTopLevelPath: Self.snapshots).map { [$0] } ?? []
        for path in scope.timeshiftDirectories where !places.contains(path) { places.append(path) }
        var scan = MarkedDirectoryScan()
        for path in places {
            scan.look(in: path) { try TimeshiftDateDirectory.marked(in: $0, filesystem: filesystem) }
        }
        return scan
    }

    func finish(_ directory: MarkedDeletionDirectory, _ rooms: OwnerRooms) throws -> Bool {
        try TimeshiftDateDirectory.finish(directory.path)
    }
}
