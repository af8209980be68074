/// systemd-nspawn's machines: each image a subvolume `DIR/NAME` in one of the directories
/// where machinectl looks for images (`/var/lib/machines` first; `machinectl clone` makes a
/// snapshot there, `machinectl pull-*` and `import-*` their `.#NAME…` temporaries),
/// whether the directory is part of the root subvolume, a subvolume of its own or a whole
/// btrfs (systemd's `/var/lib/machines.raw`). A `.nspawn` file names a machine, not a
/// directory: its image is looked up in those same directories.
///
/// The platform finds which of the directories lie on the filesystem being listed
/// (`ImageDirectories`), so an image is recognised by its place on the filesystem
/// through whichever mount reaches it; `var/lib/machines` in a path is enough on its own.
public struct MachinesOwner: SnapshotOwner {
    public init() {}

    public var manager: SnapshotManager { .machines }
    public var deletingTool: String? { "machinectl" }

    /// machinectl's image directories on the filesystem being listed (`OwnerSettings`).
    public struct ImageDirectories: Sendable {
        /// Each directory's path from the top level ("" when it is the top itself).
        public var topLevelPaths: [String]
        public init(topLevelPaths: [String]) { self.topLevelPaths = topLevelPaths }
    }

    public func mayOwn(_ path: OwnerPathBytes, context: OwnerContext) -> Bool {
        if path.path.contains("machines/") || path.mounted?.contains("machines/") == true { return true }
        return context.settings[ImageDirectories.self]?.topLevelPaths.contains { directory in
            directory.isEmpty || path.path.hasPrefix(directory + "/")
        } ?? false
    }

    /// Both looks end in "/" ("machines/", an image directory and its "/"), so they fall
    /// within the directory part of a path.
    public var decidesByDirectory: Bool { true }

    public func recognise(_ place: OwnerPlace, context: OwnerContext) -> OwnerRecognition? {
        let directories = context.settings[ImageDirectories.self]?.topLevelPaths ?? []
        guard
            place.find(["var", "lib", "machines"]) != nil
                || directories.contains(where: { Self.holds($0, place.components) })
        else { return nil }
        return OwnerRecognition(ManagerMetadata(manager: manager, name: place.components.last.map(String.init)))
    }

    /// True when the directory at `topLevelPath` holds the subvolume (or one above it).
    static func holds(_ topLevelPath: String, _ components: [Substring]) -> Bool {
        let directory = topLevelPath.split(separator: "/")
        return components.count > directory.count && components.starts(with: directory)
    }
}

extension SnapshotManager {
    public static let machines = SnapshotManager(rawValue: "machines")
}
