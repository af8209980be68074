/// One owner of snapshots in a room of its own (`Snapshots/Owners/NAME/`): it recognises
/// its subvolumes by its own on-disk layout wherever that lives, dates them when it
/// records a date, says what protects them and whether its directory is marked while one
/// is deleted. What it keeps on disk beside them (metadata removed after the snapshot,
/// the marker, the sweep of an interrupted run) is its room in CarveLinux, the same
/// type's `OwnerRoom` conformance there. Owners are registered in `SnapshotOwners.all`;
/// adding one is its own files plus one line there.
public protocol SnapshotOwner: Sendable {
    /// The name shown in MANAGER, JSON `manager` and accepted by `--manager`.
    var manager: SnapshotManager { get }
    /// The kinds of filesystem its layout lives on (btrfs by default; the ZFS tools' own
    /// owners are asked only about ZFS snapshots).
    var filesystems: [FilesystemKind] { get }
    /// Byte strings one of which a path (top-level or mounted) in this owner's layout
    /// contains: the default `mayOwn`. Most subvolumes contain none and are passed over.
    var pathHints: [StaticString] { get }
    /// A cheap look at the path's bytes: false when the subvolume cannot be this owner's,
    /// so `recognise` is not asked (splitting every path cost more than listing it). The
    /// classifier asks it only of an owner without `pathHints`.
    func mayOwn(_ path: OwnerPathBytes) -> Bool
    /// The same look, for an owner whose layout its settings place (machinectl's image
    /// directories on this filesystem); by default `mayOwn(path)`.
    func mayOwn(_ path: OwnerPathBytes, context: OwnerContext) -> Bool
    /// True when `mayOwn` reads only the paths' directories (up to their last "/"), so the
    /// classifier asks it once for all the subvolumes of a directory, not once for each of
    /// ten thousand; by default when every path hint ends in "/".
    var decidesByDirectory: Bool { get }
    /// nil when `place` is not in this owner's layout and the next owner is asked; else
    /// the verdict, final: the metadata (nil: listed as plain) and a warning.
    func recognise(_ place: OwnerPlace, context: OwnerContext) -> OwnerRecognition?
    /// Why carve never deletes this owner's subvolumes, whether named or selected: the tool
    /// that does (a container engine's); nil when the other safety rules decide.
    var deletingTool: String? { get }
    /// The owner's own rules that keep one of its snapshots (snapper's number 0 and
    /// `important`), given the flags that lift some.
    func protections(of subvolume: Volume, rules: DeletionRules) -> [Protection]
    /// True when the snapshot's metadata directory is marked before its subvolume goes, so
    /// a killed run leaves what the next run finishes (see `InterruptedDeletionMarking`).
    var marksDeletion: Bool { get }
    /// True when one marked directory holds several subvolumes (timeshift's `@`, `@home`):
    /// a marked one with some left may have lost a sibling, so its marker stays on record.
    var markerCoversSeveralSubvolumes: Bool { get }
}

extension SnapshotOwner {
    public var filesystems: [FilesystemKind] { [.btrfs] }
    public var pathHints: [StaticString] { [] }
    public func mayOwn(_ path: OwnerPathBytes) -> Bool { path.containsAny(pathHints) }
    public func mayOwn(_ path: OwnerPathBytes, context: OwnerContext) -> Bool { mayOwn(path) }
    public var decidesByDirectory: Bool {
        let hints = pathHints
        return !hints.isEmpty
            && hints.allSatisfy {
                $0.utf8CodeUnitCount > 0 && $0.utf8Start[$0.utf8CodeUnitCount - 1] == UInt8(ascii: "/")
            }
    }
    public var deletingTool: String? { nil }
    public func protections(of subvolume: Volume, rules: DeletionRules) -> [Protection] { [] }
    public var marksDeletion: Bool { false }
    public var markerCoversSeveralSubvolumes: Bool { false }
}

/// An owner's verdict on a subvolume in its layout.
public struct OwnerRecognition: Sendable {
    /// What the owner recorded; nil: it is listed as plain.
    public var metadata: ManagerMetadata?
    /// Why its metadata could not be used, for the listing's warnings.
    public var warning: String?
    public init(_ metadata: ManagerMetadata?, warning: String? = nil) {
        self.metadata = metadata; self.warning = warning
    }
}

/// Every owner carve knows, in the order they are asked: engines before managers, so a
/// manager-like name inside an engine's storage is still the engine's; snapper before
/// timeshift before btrbk, whose names are the least telling.
public enum SnapshotOwners {
    /// The one registration list.
    public static let all: [any SnapshotOwner] = [
        DockerOwner(),
        ContainersStorageOwner(),
        MachinesOwner(),
        IncusOwner(),
        SnapperOwner(),
        TimeshiftOwner(),
        BtrbkOwner(),
        // ZFS: engines first, then the tools whose names are the most telling.
        DockerZFSOwner(),
        IncusZFSOwner(),
        ZFSAutoSnapshotOwner(),
        SanoidOwner(),
        SyncoidOwner(),
        ZreplOwner(),
        ProxmoxReplicationOwner(),
        ZnapzendOwner(),
    ]

    /// The owners asked about the volumes of one kind of filesystem, in the order of `all`.
    public static func all(for kind: FilesystemKind) -> [any SnapshotOwner] {
        all.filter { $0.filesystems.contains(kind) }
    }

    private static let byName: [SnapshotManager: any SnapshotOwner] = Dictionary(
        all.map { ($0.manager, $0) }, uniquingKeysWith: { first, _ in first })

    /// The owner of this name; nil for `plain`. Most snapshots are plain, and a deletion
    /// run asks twice a snapshot: comparing the name costs less than hashing it.
    public static func owner(_ manager: SnapshotManager) -> (any SnapshotOwner)? {
        manager == .plain ? nil : byName[manager]
    }

    /// The container engine of this name, whose subvolumes are its live data.
    static func engine(_ manager: SnapshotManager) -> (any SnapshotOwner)? {
        guard let owner = owner(manager), owner.deletingTool != nil else { return nil }
        return owner
    }

    /// The snapshot managers' names, and the container engines'.
    /// Each name once: an engine on btrfs and on ZFS is two owners of one name.
    public static let managerNames = uniqueNames(all.filter { $0.deletingTool == nil })
    public static let engineNames = uniqueNames(all.filter { $0.deletingTool != nil })

    private static func uniqueNames(_ owners: [any SnapshotOwner]) -> [String] {
        var seen = Set<String>()
        return owners.map(\.manager.rawValue).filter { seen.insert($0).inserted }
    }

    /// The names `--manager` accepts, in the order its error lists them: the managers,
    /// `plain`, then the engines.
    public static let names: [String] = managerNames + [SnapshotManager.plain.rawValue] + engineNames
}
