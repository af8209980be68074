/// snapper: `…/.snapshots/N/snapshot` beside `N/info.xml` (its date, type, cleanup,
/// description, userdata), or `N/snapshot` in a `.snapshots` directory that a config
/// names when it is a subvolume mounted elsewhere (`@snapshots` on `/.snapshots`).
public struct SnapperOwner: SnapshotOwner {
    public init() {}

    public var manager: SnapshotManager { .snapper }

    /// A config's `.snapshots` directory, located on this filesystem: the owner's settings.
    public struct Directory: Sendable, Hashable {
        public var config: String
        /// The `.snapshots` directory's path from the top level, e.g. "@snapshots" or "@home/.snapshots".
        public var topLevelPath: String
        /// The config's UNIQUE_NUMBERS.
        public var uniqueNumbers: Bool
        public init(config: String, topLevelPath: String, uniqueNumbers: Bool = false) {
            self.config = config; self.topLevelPath = topLevelPath; self.uniqueNumbers = uniqueNumbers
        }
    }

    /// Every config's directory on the filesystem being listed (`OwnerSettings`).
    public struct Directories: Sendable {
        public var all: [Directory]
        public init(all: [Directory]) { self.all = all }
    }

    public func mayOwn(_ path: OwnerPathBytes) -> Bool { path.last.equals("snapshot") }

    /// Once its path ends in `/snapshot`, no other owner is asked.
    public func recognise(_ place: OwnerPlace, context: OwnerContext) -> OwnerRecognition? {
        let components = place.components
        let directories = context.settings[Directories.self]?.all ?? []
        guard components.count >= 3, components[components.count - 1] == "snapshot",
            let number = Int(components[components.count - 2]), components[components.count - 2].allSatisfy(\.isASCII)
        else { return OwnerRecognition(nil) }
        // `.snapshots` may itself be a subvolume mounted there (`@snapshots` on /.snapshots).
        let directory = components.dropLast(2).joined(separator: "/")
        guard
            components[components.count - 3] == ".snapshots"
                || directories.contains(where: { $0.topLevelPath == directory })
        else { return OwnerRecognition(nil) }
        return recognise(place, number: number, directory: directories.first { $0.topLevelPath == directory }, context)
    }

    private func recognise(
        _ place: OwnerPlace, number: Int, directory: Directory?, _ context: OwnerContext
    ) -> OwnerRecognition {
        let config = directory?.config
        var layout = ManagerMetadata(manager: .snapper, config: config, number: number)
        layout.uniqueNumbers = directory?.uniqueNumbers ?? false
        guard let mounted = place.mountedPath else {
            layout.warning = "not mounted: info.xml not read"
            return OwnerRecognition(layout)
        }
        let infoPath = String(mounted.dropLast("/snapshot".count)) + "/info.xml"
        layout.metadataPath = String(mounted.dropLast("/snapshot".count))
        do {
            guard let data = try context.readFile(infoPath, SnapperInfo.maximumSize + 1) else {
                layout.warning = "no info.xml"
                return OwnerRecognition(layout)
            }
            var metadata = try SnapperInfo.parse(data, config: config)
            metadata.metadataPath = layout.metadataPath
            metadata.uniqueNumbers = layout.uniqueNumbers
            if metadata.number != number {
                return OwnerRecognition(
                    nil,
                    warning: SnapshotClassifier.brokenWarning(
                        infoPath, "it says number \(metadata.number ?? -1), the directory is \(number)"))
            }
            return OwnerRecognition(metadata)
        } catch {
            return OwnerRecognition(nil, warning: SnapshotClassifier.brokenWarning(infoPath, "\(error)"))
        }
    }

    /// snapper's number 0 stands for the current system; `important` is kept unless asked.
    public func protections(of subvolume: Volume, rules: DeletionRules) -> [Protection] {
        var found: [Protection] = []
        if subvolume.metadata.number == 0 { found.append(.snapperZero) }
        if subvolume.metadata.important && !rules.includeImportant { found.append(.important) }
        return found
    }

    public var marksDeletion: Bool { true }
}

extension SnapshotManager {
    public static let snapper = SnapshotManager(rawValue: "snapper")
}

extension SnapshotClassifier {
    public typealias SnapperDirectory = SnapperOwner.Directory

    /// A classifier that knows where snapper's configs keep their `.snapshots`.
    public init(
        snapperDirectories: [SnapperDirectory], timeZone: TimeZone, readFile: @escaping OwnerContext.FileReader,
        probe: @escaping OwnerProbe = { _ in false }
    ) {
        var settings = OwnerSettings()
        settings[SnapperOwner.Directories.self] = SnapperOwner.Directories(all: snapperDirectories)
        self.init(context: OwnerContext(timeZone: timeZone, readFile: readFile, probe: probe, settings: settings))
    }
}

extension InterruptedDeletionScope {
    /// The `.snapshots` directories the listing showed.
    public var snapperDirectories: [String] { seen[.snapper] ?? [] }
}
