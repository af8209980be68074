/// Why an owner's file (snapper's info.xml and configs, timeshift's info.json) could
/// not be used, in one phrase; the caller names the file.
public struct OwnerFileFailure: Error, Equatable, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
    public init(reason: String) { self.reason = reason }
}
