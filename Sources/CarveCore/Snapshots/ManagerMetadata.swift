/// What a snapshot manager recorded about a snapshot.
public struct ManagerMetadata: Sendable, Hashable, Codable {
    public var manager: SnapshotManager
    /// snapper: the config name.
    public var config: String?
    /// snapper: the snapshot number.
    public var number: Int?
    /// timeshift: the snapshot directory name; btrbk: the snapshot name.
    public var name: String?
    /// snapper: single, pre or post.
    public var type: String?
    public var description: String?
    /// snapper: the cleanup algorithm (one of `SnapperCleanup`'s names).
    public var cleanup: String?
    public var preNumber: Int?
    public var userdata: [String: String]
    /// timeshift: the tags (O, B, H, D, W, M).
    public var tags: [String]
    public var important: Bool
    /// When the manager says the snapshot was made; nil when it does not say.
    public var created: Date?
    /// The manager's metadata file or directory that goes with the snapshot
    /// (snapper's `.snapshots/N`, timeshift's snapshot directory); removed only after the snapshot.
    public var metadataPath: String?
    /// Why the manager's metadata could not be read, when it could not.
    public var warning: String?
    /// snapper: its config's UNIQUE_NUMBERS="yes", so the directory of the highest
    /// number is kept, emptied, as snapper keeps it, and that number is never given again.
    public var uniqueNumbers = false

    public init(
        manager: SnapshotManager, config: String? = nil, number: Int? = nil, name: String? = nil,
        type: String? = nil, description: String? = nil, cleanup: String? = nil, preNumber: Int? = nil,
        userdata: [String: String] = [:], tags: [String] = [], important: Bool = false,
        created: Date? = nil, metadataPath: String? = nil, warning: String? = nil
    ) {
        self.manager = manager; self.config = config; self.number = number; self.name = name
        self.type = type; self.description = description; self.cleanup = cleanup; self.preNumber = preNumber
        self.userdata = userdata; self.tags = tags; self.important = important; self.created = created
        self.metadataPath = metadataPath; self.warning = warning
    }

    public static let plain = ManagerMetadata(manager: .plain)

    /// `self == .plain`, field by field in place: the derived `==` copied both sides
    /// (for each of ten thousand subvolumes a listing classifies). A test holds the two equal.
    public var isPlain: Bool {
        manager == .plain && config == nil && number == nil && name == nil && type == nil && description == nil
            && cleanup == nil && preNumber == nil && userdata.isEmpty && tags.isEmpty && !important && created == nil
            && metadataPath == nil && warning == nil && !uniqueNumbers
    }
}
