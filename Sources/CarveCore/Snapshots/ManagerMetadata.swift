/// What a snapshot manager recorded about a snapshot.
///
/// Optional fields are spelled `Optional<T>`, not `T?`: a `var` of type `T?` is set to
/// nil before the initialiser runs, and with three or more such fields assigned there
/// the compiler built each value on the stack and copied it out (every reference
/// retained and released once more), for each of the ten thousand a listing makes.
public struct ManagerMetadata: Sendable, Hashable, Codable {
    public var manager: SnapshotManager
    /// snapper: the config name.
    public var config: Optional<String>
    /// snapper: the snapshot number.
    public var number: Optional<Int>
    /// timeshift: the snapshot directory name; btrbk: the snapshot name.
    public var name: Optional<String>
    /// snapper: single, pre or post.
    public var type: Optional<String>
    public var description: Optional<String>
    /// snapper: the cleanup algorithm (one of `SnapperCleanup`'s names).
    public var cleanup: Optional<String>
    public var preNumber: Optional<Int>
    public var userdata: [String: String]
    /// timeshift: the tags (O, B, H, D, W, M).
    public var tags: [String]
    public var important: Bool
    /// When the manager says the snapshot was made; nil when it does not say.
    public var created: Optional<Date>
    /// The manager's metadata file or directory that goes with the snapshot
    /// (snapper's `.snapshots/N`, timeshift's snapshot directory); removed only after the snapshot.
    public var metadataPath: Optional<String>
    /// Why the manager's metadata could not be read, when it could not.
    public var warning: Optional<String>
    /// snapper: its config's UNIQUE_NUMBERS="yes", so the directory of the highest
    /// number is kept, emptied, as snapper keeps it, and that number is never given again.
    public var uniqueNumbers: Bool

    public init(
        manager: SnapshotManager, config: String? = nil, number: Int? = nil, name: String? = nil,
        type: String? = nil, description: String? = nil, cleanup: String? = nil, preNumber: Int? = nil,
        userdata: [String: String] = [:], tags: [String] = [], important: Bool = false,
        created: Date? = nil, metadataPath: String? = nil, warning: String? = nil
    ) {
        self.manager = manager; self.config = config; self.number = number; self.name = name
        self.type = type; self.description = description; self.cleanup = cleanup; self.preNumber = preNumber
        self.userdata = userdata; self.tags = tags; self.important = important; self.created = created
        self.metadataPath = metadataPath; self.warning = warning; uniqueNumbers = false
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
