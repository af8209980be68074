/// timeshift: `timeshift-btrfs/snapshots/DATE/@…` (writable), dated by DATE's
/// `info.json` or, without one, by the name DATE itself.
public struct TimeshiftOwner: SnapshotOwner {
    public init() {}

    public var manager: SnapshotManager { .timeshift }

    public func mayOwn(_ path: OwnerPathBytes) -> Bool {
        path.last.buffer.first == UInt8(ascii: "@") && path.path.contains("timeshift-btrfs/")
    }

    /// Once an `@…` name lies below `timeshift-btrfs/`, no other owner is asked.
    public func recognise(_ place: OwnerPlace, context: OwnerContext) -> OwnerRecognition? {
        let components = place.components
        guard components.count >= 4, components[components.count - 4] == "timeshift-btrfs",
            components[components.count - 3] == "snapshots", components[components.count - 1].hasPrefix("@")
        else { return OwnerRecognition(nil) }
        return recognise(place, name: String(components[components.count - 2]), context)
    }

    private func recognise(_ place: OwnerPlace, name: String, _ context: OwnerContext) -> OwnerRecognition {
        var layout = ManagerMetadata(
            manager: .timeshift, name: name, created: TimeshiftInfo.date(fromName: name, timeZone: context.timeZone))
        guard let mounted = place.mountedPath else {
            layout.warning = "not mounted: info.json not read"
            return OwnerRecognition(layout)
        }
        let directory = String(mounted[..<(mounted.lastIndex(of: "/") ?? mounted.endIndex)])
        layout.metadataPath = directory
        let infoPath = directory + "/info.json"
        do {
            guard let data = try context.readFile(infoPath, TimeshiftInfo.maximumSize + 1) else {
                layout.warning = "no info.json"
                return OwnerRecognition(layout)
            }
            var metadata = try TimeshiftInfo.parse(data, name: name)
            metadata.metadataPath = directory
            if metadata.created == nil { metadata.created = layout.created }
            return OwnerRecognition(metadata)
        } catch {
            return OwnerRecognition(nil, warning: SnapshotClassifier.brokenWarning(infoPath, "\(error)"))
        }
    }

    public var marksDeletion: Bool { true }
    /// DATE holds `@`, `@home`…: a marked DATE with some left may have lost a sibling.
    public var markerCoversSeveralSubvolumes: Bool { true }
}

extension SnapshotManager {
    public static let timeshift = SnapshotManager(rawValue: "timeshift")
}

extension InterruptedDeletionScope {
    /// The `snapshots` directories the listing showed.
    public var timeshiftDirectories: [String] { seen[.timeshift] ?? [] }
}
