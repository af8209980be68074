import CarveCore

/// systemd-nspawn's room: which of machinectl's image directories lie on the filesystem
/// being listed, and where from its top level, so that an image is recognised however
/// the filesystem is reached (`MachinesOwner.ImageDirectories`). Images are removed with
/// machinectl, so the room keeps nothing else.
extension MachinesOwner: OwnerRoom {
    func prepare(_ settings: inout OwnerSettings, for filesystem: Filesystem, _ rooms: OwnerRooms) -> [String] {
        var paths: [String] = []
        for directory in rooms.host.machineImageDirectories {
            // A directory of another filesystem (or none) is no place of this one's; the
            // mount table names real paths (/var/lib/machines may be a symlink).
            guard let uuid = try? BtrfsMounts.fsid(of: directory), uuid == filesystem.uuid,
                let path = filesystem.topLevelPath(ofMountedPath: realPath(directory) ?? directory),
                !paths.contains(path)
            else { continue }
            paths.append(path)
        }
        settings[ImageDirectories.self] = ImageDirectories(topLevelPaths: paths)
        return []
    }
}
