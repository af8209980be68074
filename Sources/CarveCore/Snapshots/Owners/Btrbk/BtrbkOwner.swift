/// btrbk: read-only `SUBVOL.YYYYMMDD[THHMM[SS]][_N]`, dated by its name (`BtrbkName`).
public struct BtrbkOwner: SnapshotOwner {
    public init() {}

    public var manager: SnapshotManager { .btrbk }

    /// A read-only subvolume whose name has a '.' and eight digits after it.
    public func mayOwn(_ path: OwnerPathBytes) -> Bool {
        let last = path.last.buffer
        guard path.readOnly, let dot = last.lastIndex(of: UInt8(ascii: ".")) else { return false }
        var digits = 0
        for byte in last[(dot + 1)...].prefix(8) where byte >= 0x30 && byte <= 0x39 { digits += 1 }
        return digits == 8
    }

    public func recognise(_ place: OwnerPlace, context: OwnerContext) -> OwnerRecognition? {
        let name = place.components.last.map(String.init) ?? place.path
        guard let parsed = BtrbkName.parse(name, timeZone: context.timeZone) else {
            guard BtrbkName.hasStampShape(name) else { return OwnerRecognition(nil) }
            return OwnerRecognition(
                nil,
                warning:
                    "\(place.path): the date in this btrbk-style name is impossible; the snapshot is listed as plain")
        }
        return OwnerRecognition(ManagerMetadata(manager: .btrbk, name: name, created: parsed.created))
    }
}

extension SnapshotManager {
    public static let btrbk = SnapshotManager(rawValue: "btrbk")
}
