/// What a backend knows beside the plain volumes it lists that owners need to recognise
/// theirs. Backends only describe the filesystem; `OwnerClassification` turns these facts
/// and the host's preparation into one `OwnerContext`, the same way for every backend.
public struct OwnerFacts: Sendable {
    /// Where the files owners look for beside a volume are.
    public enum Files: Sendable {
        /// On the host, through each volume's mounted path (btrfs): read as `OwnerPreparing` reads them.
        case host
        /// Nowhere to read: only these names exist beside the volumes (a ZFS pool's datasets).
        case only(Set<String>)
    }

    public var files: Files
    /// What the filesystem itself tells owners (znapzend's formats, a dataset property).
    public var settings: OwnerSettings
    /// The zone the owners' local dates are in.
    public var timeZone: TimeZone

    public init(files: Files, settings: OwnerSettings = OwnerSettings(), timeZone: TimeZone) {
        self.files = files; self.settings = settings; self.timeZone = timeZone
    }
}

/// The registry consumes a listing's facts before anyone compares listings (a check's
/// subjects do): they take no part in a listing's equality.
extension OwnerFacts: Hashable {
    public static func == (a: OwnerFacts, b: OwnerFacts) -> Bool { true }
    public func hash(into hasher: inout Hasher) {}
}

/// The host's side of owner recognition: what the owners' rooms learn before a
/// filesystem's volumes are classified (snapper's configs), and how owners read their
/// files on the host. CarveLinux's `OwnerRooms` is the real one; a fake needs none.
public protocol OwnerPreparing: Sendable {
    /// Adds what the rooms of `filesystem`'s owners read on the host to `settings`; returns warnings.
    func prepare(_ settings: inout OwnerSettings, for filesystem: Filesystem) -> [String]
    /// How owners read files on the host during one classification: a fresh probe each
    /// time, which may remember what it found for that classification only.
    func hostFiles() -> (read: OwnerContext.FileReader, probe: OwnerProbe)
}

/// A host with nothing prepared and no files: what a registry has until it is given the owners' rooms.
public struct NoOwnerPreparing: OwnerPreparing {
    public init() {}
}

extension OwnerPreparing {
    public func prepare(_ settings: inout OwnerSettings, for filesystem: Filesystem) -> [String] { [] }
    public func hostFiles() -> (read: OwnerContext.FileReader, probe: OwnerProbe) { ({ _, _ in nil }, { _ in false }) }
}
