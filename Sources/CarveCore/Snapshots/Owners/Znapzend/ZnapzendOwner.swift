/// znapzend: snapshots named by the `org.znapzend:tsformat` its setup stores on each
/// dataset it manages (`%Y-%m-%d-%H%M%S` by default, local time), which the dataset's
/// snapshots inherit; a name is znapzend's only where that property is set. The newest is
/// what its next send to each destination starts from (`ZFSReplicationBases`).
struct ZnapzendOwner: SnapshotOwner {
    var manager: SnapshotManager { .znapzend }
    var filesystems: [FilesystemKind] { [.zfs] }

    func mayOwn(_ path: OwnerPathBytes) -> Bool { path.path.contains("@") }

    func recognise(_ place: OwnerPlace, context: OwnerContext) -> OwnerRecognition? {
        guard let (dataset, name) = ZFSSnapshotNames.split(place),
            let format = context.settings[ZnapzendFormats.self]?.byDataset[String(dataset)],
            let pattern = Self.pattern(format),
            let created = ZFSSnapshotNames.date(name, pattern: pattern, zone: context.timeZone)
        else { return nil }
        return OwnerRecognition(ManagerMetadata(manager: manager, name: String(name), created: created))
    }

    /// A strftime format as a `ZFSSnapshotNames.date` pattern; nil when it uses a
    /// conversion other than %Y %m %d %H %M %S and %%, or letters the pattern reads.
    static func pattern(_ format: String) -> String? {
        var pattern = ""
        var escaped = false
        for character in format {
            if escaped {
                escaped = false
                switch character {
                case "Y": pattern += "YYYY"
                case "m": pattern += "MM"
                case "d": pattern += "DD"
                case "H": pattern += "hh"
                case "M": pattern += "mm"
                case "S": pattern += "ss"
                case "%": pattern += "%"
                default: return nil
                }
            } else if character == "%" {
                escaped = true
            } else if "YMDhms".contains(character) {
                return nil
            } else {
                pattern.append(character)
            }
        }
        return escaped || !pattern.contains(Character("Y")) ? nil : pattern
    }
}

extension SnapshotManager {
    public static let znapzend = SnapshotManager(rawValue: "znapzend")
}

/// Each dataset's `org.znapzend:tsformat`, by dataset name: what the ZFS backend hands the
/// znapzend owner (`OwnerContext.settings`).
public struct ZnapzendFormats: Sendable {
    public var byDataset: [String: String]
    public init(_ byDataset: [String: String]) { self.byDataset = byDataset }
}
