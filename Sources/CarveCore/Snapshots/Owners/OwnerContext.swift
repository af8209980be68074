/// What owners read while recognising: their files through a mount, the time zone their
/// local dates are in, and what the platform learnt for them first (`settings`).
public struct OwnerContext: Sendable {
    /// Reads at most `limit` bytes of a metadata file; nil when it does not exist.
    /// Throws when it exists and cannot be read (the error's description is the reason).
    public typealias FileReader = @Sendable (_ path: String, _ limit: Int) throws -> [UInt8]?

    public var timeZone: TimeZone
    public var readFile: FileReader
    /// Looks beside an engine's subvolumes for the files that tell engines apart.
    public var probe: OwnerProbe
    public var settings: OwnerSettings

    public init(
        timeZone: TimeZone, readFile: @escaping FileReader, probe: @escaping OwnerProbe = { _ in false },
        settings: OwnerSettings = OwnerSettings()
    ) {
        self.timeZone = timeZone; self.readFile = readFile; self.probe = probe; self.settings = settings
    }
}

/// Looks at an owner's own files beside its subvolumes: true when `path` (absolute,
/// through a mount) exists.
public typealias OwnerProbe = @Sendable (_ path: String) -> Bool

/// What each owner's room found on the host before a listing (snapper's configs), one
/// value per type, so an owner's settings are its own type and nothing else names them.
public struct OwnerSettings: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]

    public init() {}

    public subscript<Value: Sendable>(_ type: Value.Type) -> Value? {
        get { values[ObjectIdentifier(type)] as? Value }
        set { values[ObjectIdentifier(type)] = newValue }
    }
}
