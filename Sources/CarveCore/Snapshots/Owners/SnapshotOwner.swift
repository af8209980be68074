/// One owner of snapshots in a room of its own: it recognises its subvolumes by its
/// own on-disk layout wherever that lives, dates them when it records a date, and says
/// what protects them. Owners are registered in `SnapshotOwners.all`; adding one is
/// its own file plus one line there.
public protocol SnapshotOwner: Sendable {
    /// The name shown in MANAGER, JSON `manager` and accepted by `--manager`.
    var manager: SnapshotManager { get }
    /// Byte strings one of which a path in this owner's layout contains: a subvolume
    /// whose paths contain none is not looked at further (most are not).
    var pathHints: [StaticString] { get }
    /// The owner's metadata when `place` lies in its layout, else nil.
    func recognise(_ place: OwnerPlace, probe: OwnerProbe) -> ManagerMetadata?
    /// Why carve never deletes this owner's subvolumes, whether named or selected;
    /// nil when the other safety rules decide.
    var deletingTool: String? { get }
}

/// Where a subvolume lies, split into path components once for every owner.
public struct OwnerPlace: Sendable {
    /// Its path from the top level, e.g. ["@", "var", "lib", "docker", "btrfs", "subvolumes", "ID"].
    public var components: [Substring]
    /// Its path through a mount, when a mount reaches it.
    public var mountedComponents: [Substring]?
    public var mountedPath: String?
    public var readOnly: Bool

    public init(path: String, mountedPath: String?, readOnly: Bool) {
        components = path.split(separator: "/")
        mountedComponents = mountedPath.map { $0.split(separator: "/") }
        self.mountedPath = mountedPath; self.readOnly = readOnly
    }

    /// The first place (top-level or mounted components) where `sequence` occurs followed
    /// by at least `after` more components: the mounted path when a mount reaches it
    /// (that is where an owner's files can be looked at), then the top-level path.
    public func find(_ sequence: [String], after: Int = 1) -> (mounted: Bool, prefix: [Substring])? {
        if let mounted = mountedComponents, let at = Self.index(of: sequence, in: mounted, after: after) {
            return (true, Array(mounted[..<at]))
        }
        if let at = Self.index(of: sequence, in: components, after: after) { return (false, Array(components[..<at])) }
        return nil
    }

    static func index(of sequence: [String], in components: [Substring], after: Int) -> Int? {
        guard components.count >= sequence.count + after else { return nil }
        return (0...(components.count - sequence.count - after)).first { start in
            sequence.indices.allSatisfy { components[start + $0] == sequence[$0] }
        }
    }
}

/// Looks at an owner's own files beside its subvolumes: true when `path` (absolute,
/// through a mount) exists. Answers are cached per run by the classifier.
public typealias OwnerProbe = @Sendable (_ path: String) -> Bool

/// Every owner carve knows, in the order they are asked: engines before managers, so
/// a manager-like name inside an engine's storage is still the engine's.
public enum SnapshotOwners {
    /// The container engines, whose subvolumes are their live data.
    public static let engines: [any SnapshotOwner] = [
        DockerOwner(),
        ContainersStorageOwner(),
        MachinesOwner(),
        IncusOwner(),
    ]

    /// Every engine's path hints, once: the classifier's first, cheap test.
    static let engineHints: [StaticString] = engines.flatMap(\.pathHints)

    static func engine(_ manager: SnapshotManager) -> (any SnapshotOwner)? {
        engines.first { $0.manager == manager }
    }

    /// The names `--manager` accepts, for its error message.
    public static var names: [String] { SnapshotManager.allCases.map(\.rawValue) }
}
