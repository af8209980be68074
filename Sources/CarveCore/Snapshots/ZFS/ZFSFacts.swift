/// What ZFS says of a snapshot beside what every volume has: its holds and clones, which
/// keep it (ZFS refuses to destroy it while they last), and a `zfs send` reading it.
public struct ZFSFacts: Sendable, Hashable, Codable {
    /// User holds (`userrefs`).
    public var holds: Int
    /// The holds' tags (`zfs holds -H`); nil where the dialect cannot tell them (zfs-fuse's
    /// `zfs holds` needs a helper Debian does not ship) or they were not read.
    public var holdTags: [String]?
    /// The datasets cloned from it (`clones`, or the datasets whose `origin` it is).
    public var clones: [String]
    /// `zfs destroy -d` was asked: ZFS destroys it when its last hold or clone goes.
    public var deferDestroy: Bool
    /// The processes running `zfs send` of it (as base or as target), as `4242 (zfs)`.
    public var sentBy: [String]

    public init(
        holds: Int = 0, holdTags: [String]? = nil, clones: [String] = [], deferDestroy: Bool = false,
        sentBy: [String] = []
    ) {
        self.holds = holds; self.holdTags = holdTags; self.clones = clones; self.deferDestroy = deferDestroy
        self.sentBy = sentBy
    }

    /// The holds as the listing shows them: their tags, else their count.
    public var holdsText: String {
        guard holds > 0 else { return "" }
        guard let holdTags, !holdTags.isEmpty else { return "\(holds)" }
        return holdTags.joined(separator: ",")
    }
}

/// Why ZFS itself refuses to destroy a snapshot, checked by carve first so a bulk run
/// never selects it and a named one is refused with ZFS's own reason (`zfs destroy` says
/// "dataset is busy" for a hold and a running send, "snapshot has dependent clones" for
/// a clone's origin). No flag lifts these: releasing the hold, destroying or promoting
/// the clone, or waiting for the send does.
public enum ZFSRefusal: Sendable, Hashable {
    /// User holds, by tag (or count where the tags cannot be read).
    case held(count: Int, tags: [String]?)
    /// The origin of these clones.
    case cloneOrigin([String])
    /// A `zfs send` is reading it.
    case beingSent([String])

    /// The refusals of a snapshot's current state.
    public static func of(_ facts: ZFSFacts?) -> [ZFSRefusal] {
        guard let facts else { return [] }
        var found: [ZFSRefusal] = []
        if facts.holds > 0 { found.append(.held(count: facts.holds, tags: facts.holdTags)) }
        if !facts.clones.isEmpty { found.append(.cloneOrigin(facts.clones)) }
        if !facts.sentBy.isEmpty { found.append(.beingSent(facts.sentBy)) }
        return found
    }

    public var reason: String {
        switch self {
        case .held(let count, let tags):
            let named =
                tags.map { $0.isEmpty ? "" : " (\($0.joined(separator: ", ")))" }
                ?? " (this zfs cannot name the tags)"
            return "it has \(count) user hold\(count == 1 ? "" : "s")\(named): zfs refuses to destroy it "
                + "(dataset is busy); release them with zfs release"
        case .cloneOrigin(let clones):
            return "it is the origin of \(clones.joined(separator: ", ")): zfs refuses to destroy it "
                + "(snapshot has dependent clones); destroy or promote the clones first"
        case .beingSent(let senders):
            return "zfs send is reading it (\(senders.joined(separator: ", "))): zfs refuses to destroy it "
                + "(dataset is busy) until the send ends"
        }
    }
}
