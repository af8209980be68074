/// What a snapshot manager recorded about a snapshot: its `Fields`, read and set as
/// the type's own (`metadata.name`).
///
/// The fields live in one shared box, copied only when a copy is changed: every
/// `Volume` holds one, and held inline its 200 bytes were two fifths of each of the ten
/// thousand volumes a listing makes (their pages faulted in, their strings retained
/// with every copy), though nearly all of them are `.plain`.
@dynamicMemberLookup
public struct ManagerMetadata: Sendable, Hashable, Codable, CustomReflectable {
    /// The fields themselves; their `Equatable`, `Hashable` and `Codable` are the type's.
    ///
    /// Optional fields are spelled `Optional<T>`, not `T?`: a `var` of type `T?` is set
    /// to nil before the initialiser runs, and with three or more such fields assigned
    /// there the compiler built each value on the stack and copied it out.
    public struct Fields: Sendable, Hashable, Codable {
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
    }

    /// Never changed: a change makes a new box. Fields read through a `let` need no
    /// exclusivity check, and changes are rare (a manager's snapshots, as they are
    /// recognised).
    @usableFromInline
    final class Box: Sendable {
        @usableFromInline let fields: Fields
        @usableFromInline init(_ fields: Fields) { self.fields = fields }
    }

    @usableFromInline var box: Box

    /// A field, read in place and changed in a new box. Inlinable, so that a field
    /// named in the code (`metadata.name`) is read directly, not through a key path
    /// applied at run time.
    @inlinable
    public subscript<Value>(dynamicMember field: WritableKeyPath<Fields, Value>) -> Value {
        get { box.fields[keyPath: field] }
        set {
            var fields = box.fields
            fields[keyPath: field] = newValue
            box = Box(fields)
        }
    }

    public init(
        manager: SnapshotManager, config: String? = nil, number: Int? = nil, name: String? = nil,
        type: String? = nil, description: String? = nil, cleanup: String? = nil, preNumber: Int? = nil,
        userdata: [String: String] = [:], tags: [String] = [], important: Bool = false,
        created: Date? = nil, metadataPath: String? = nil, warning: String? = nil
    ) {
        box = Box(
            Fields(
                manager: manager, config: config, number: number, name: name, type: type,
                description: description, cleanup: cleanup, preNumber: preNumber, userdata: userdata,
                tags: tags, important: important, created: created, metadataPath: metadataPath,
                warning: warning, uniqueNumbers: false))
    }

    /// One box that every plain volume shares.
    public static let plain = ManagerMetadata(manager: .plain)

    /// `self == .plain`: the shared box, or else field by field in place (the derived
    /// `==` copied both sides). A test holds the two equal.
    public var isPlain: Bool {
        if box === Self.plain.box { return true }
        let fields = box.fields
        return fields.manager == .plain && fields.config == nil && fields.number == nil && fields.name == nil
            && fields.type == nil && fields.description == nil && fields.cleanup == nil && fields.preNumber == nil
            && fields.userdata.isEmpty && fields.tags.isEmpty && !fields.important && fields.created == nil
            && fields.metadataPath == nil && fields.warning == nil && !fields.uniqueNumbers
    }

    public static func == (lhs: ManagerMetadata, rhs: ManagerMetadata) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }

    public func hash(into hasher: inout Hasher) { box.fields.hash(into: &hasher) }

    /// The fields' keys, as when they were the type's own.
    public init(from decoder: any Decoder) throws { box = Box(try Fields(from: decoder)) }
    public func encode(to encoder: any Encoder) throws { try box.fields.encode(to: encoder) }

    /// The fields, not the box: what `dump` and string interpolation show.
    public var customMirror: Mirror { Mirror(reflecting: box.fields) }
}
