/// Decides which subvolumes are snapshots and attaches what their manager recorded.
///
/// A subvolume is a snapshot when it has a parent UUID or lies in a known layout:
/// snapper `…/.snapshots/N/snapshot`, timeshift `timeshift-btrfs/snapshots/NAME/@…`,
/// btrbk `SUBVOL.YYYYMMDD[THHMM[SS]][_N]` (read-only). Metadata files are read
/// through the snapshot's mounted path; a broken file leaves the snapshot listed
/// as plain with a warning naming the file, and the listing goes on.
public struct SnapshotClassifier: Sendable {
    public typealias FileReader = OwnerContext.FileReader

    /// What owners read while recognising (files, time zone, their settings).
    public var context: OwnerContext
    /// The owners asked, in order (`SnapshotOwners.all` of the filesystem's kind).
    private let owners: [any SnapshotOwner]
    /// How each owner takes its first look (by the same index): asking an owner for its
    /// hints per subvolume built an array every time.
    private let looks: [FirstLook]

    enum FirstLook {
        /// `mayOwn` of the directory part, once per directory (`HintMemo`).
        case byDirectory
        /// Whether the paths contain one of these.
        case hints([StaticString])
        /// `mayOwn` of each subvolume's paths.
        case eachPath
    }

    public init(context: OwnerContext, owners: [any SnapshotOwner] = SnapshotOwners.all(for: .btrfs)) {
        self.context = context; self.owners = owners
        looks = owners.map { owner in
            if owner.decidesByDirectory { return .byDirectory }
            let hints = owner.pathHints
            return hints.isEmpty ? .eachPath : .hints(hints)
        }
    }

    public init(
        timeZone: TimeZone, readFile: @escaping OwnerContext.FileReader, probe: @escaping OwnerProbe = { _ in false }
    ) {
        self.init(context: OwnerContext(timeZone: timeZone, readFile: readFile, probe: probe))
    }

    /// The subvolumes with `isSnapshot`, `metadata`, source and nesting filled in, and the warnings.
    public func classify(_ subvolumes: [Volume]) -> (subvolumes: [Volume], warnings: [String]) {
        var classified = subvolumes
        let warnings = classify(&classified)
        return (classified, warnings)
    }

    /// Classifies in place (no second array of ten thousand subvolumes); returns the warnings.
    public func classify(_ subvolumes: inout [Volume]) -> [String] {
        // By index throughout: iterating by value copied every (fat) subvolume.
        var sources = SourceFinder()
        let parents = ParentIDs(subvolumes)
        let recognised = recogniseEach(subvolumes)
        var next = recognised.startIndex
        var warnings: [String] = []
        // The snapshots of one source name the same UUID: the last lookup most often answers.
        var lastSource: (uuid: SubvolumeUUID, position: Int?)?
        for index in subvolumes.indices {
            // A received snapshot's parent UUID is the previous backup, not its source (BackupChains).
            if subvolumes[index].receivedUUID == nil, let parentUUID = subvolumes[index].parentUUID,
                let source = lastSource.flatMap({ $0.uuid == parentUUID ? $0.position : nil })
                    ?? {
                        let position = sources.position(of: parentUUID, in: subvolumes)
                        lastSource = (parentUUID, position)
                        return position
                    }()
            {
                subvolumes[index].sourceID = subvolumes[source].id
                subvolumes[index].sourcePath = subvolumes[source].path
            }
            subvolumes[index].hasNestedSubvolumes = parents.contains(subvolumes[index].id)
            // The metadata is moved into place, not held as an optional beside it: a
            // copy and a destruction of it for each of ten thousand plain subvolumes.
            var managed = false
            if next < recognised.endIndex, recognised[next].index == index {
                if let metadata = recognised[next].metadata {
                    subvolumes[index].metadata = metadata
                    managed = true
                }
                if let warning = recognised[next].warning { warnings.append(warning) }
                next += 1
            }
            if !managed, !subvolumes[index].metadata.isPlain { subvolumes[index].metadata = .plain }
            subvolumes[index].isSnapshot = subvolumes[index].parentUUID != nil || managed
            let managerDate = managed ? subvolumes[index].metadata.created : nil
            subvolumes[index].created = managerDate ?? subvolumes[index].otime
            // Only a manager's date can disagree: a plain volume is not copied to ask.
            if managerDate != nil, let disagreement = Self.dateDisagreement(subvolumes[index]) {
                warnings.append(disagreement)
            }
        }
        return warnings
    }

    /// A warning when the manager's date and the subvolume's otime are more than a day
    /// apart: one of them is wrong, and the user should know which one carve reads.
    /// Not for received snapshots, whose otime is the day they were copied.
    static func dateDisagreement(_ volume: Volume) -> String? {
        guard volume.receivedUUID == nil, let managerDate = volume.metadata.created,
            abs(managerDate.timeIntervalSince(volume.otime)) > 86_400
        else { return nil }
        let utc = TimeZone(secondsFromGMT: 0)!
        return
            "\(volume.path): \(volume.metadata.manager.rawValue) dates it \(DateText.iso8601(managerDate, timeZone: utc)), "
            + "the subvolume was created \(DateText.iso8601(volume.otime, timeZone: utc)); carve uses \(volume.metadata.manager.rawValue)'s date"
    }

    /// `recognise` for each subvolume, its fields read from a borrowed array (reading the
    /// subvolumes whole, or from the inout array being classified, copied each one). Only
    /// the subvolumes some owner spoke of are returned, by position, ascending: most are
    /// no owner's, and ten thousand empty verdicts were built and copied for nothing.
    private func recogniseEach(
        _ subvolumes: [Volume]
    ) -> [(index: Int, metadata: ManagerMetadata?, warning: String?)] {
        var memo = HintMemo()
        var found: [(index: Int, metadata: ManagerMetadata?, warning: String?)] = []
        for index in subvolumes.indices {
            guard
                let (metadata, warning) = recognise(
                    path: subvolumes[index].path, mountedPath: subvolumes[index].mountedPath,
                    readOnly: subvolumes[index].readOnly, memo: &memo)
            else { continue }
            found.append((index, metadata, warning))
        }
        return found
    }

    /// The manager's metadata when the subvolume is in a known layout, else nil: each
    /// owner in turn has a cheap look at the path's bytes, and only those that may own it
    /// see it split into components (most subvolumes are no owner's).
    private func recognise(
        path: String, mountedPath: String?, readOnly: Bool, memo: inout HintMemo
    ) -> (ManagerMetadata?, String?)? {
        OwnerPathBytes.with(path, mountedPath, readOnly: readOnly) { bytes in
            let inDirectory = memo.verdicts(owners, looks, in: bytes, context: context)
            var place: OwnerPlace?
            for index in owners.indices {
                let mayOwn: Bool
                switch looks[index] {
                case .byDirectory: mayOwn = inDirectory[index]
                case .hints(let hints): mayOwn = bytes.containsAny(hints)
                case .eachPath: mayOwn = owners[index].mayOwn(bytes, context: context)
                }
                guard mayOwn else { continue }
                let here = place ?? OwnerPlace(path: path, mountedPath: mountedPath, readOnly: readOnly)
                place = here
                if let verdict = owners[index].recognise(here, context: context) {
                    return (verdict.metadata, verdict.warning)
                }
            }
            return nil
        }
    }

    /// Why an owner's metadata file is not used.
    static func brokenWarning(_ path: String, _ reason: String) -> String {
        "cannot use \(path): \(reason); the snapshot is listed as plain"
    }
}

/// The ids subvolumes are nested in. Most listings have a handful (the top level, a
/// snapper `.snapshots`, in a run of siblings one after another): kept in a list, each
/// asked without hashing, and a table only past that.
struct ParentIDs {
    private var few: [UInt64] = []
    private var many: Set<UInt64>?

    static let listedAtMost = 8

    init(_ subvolumes: [Volume]) {
        subvolumes.withUnsafeBufferPointer { volumes in
            var last: UInt64?
            for index in volumes.indices where volumes[index].parentID != last {
                let id = volumes[index].parentID
                last = id
                if many != nil {
                    many!.insert(id)
                } else if !few.contains(id) {
                    few.append(id)
                    if few.count > Self.listedAtMost { many = Set(few) }
                }
            }
        }
    }

    func contains(_ id: UInt64) -> Bool { many?.contains(id) ?? few.contains(id) }
}

/// The subvolume a parent UUID names. The first few UUIDs asked are found by a scan:
/// most listings name a handful of sources (one per snapper config or btrbk subvolume),
/// and hashing the UUID of each of ten thousand subvolumes into a table cost more than
/// the rest of the classification. Past those, the table is built once.
private struct SourceFinder {
    private var scans = 0
    private var byUUID: [SubvolumeUUID: Int]?

    /// Scans before the table: each costs a compare per subvolume, the table a hash.
    static let scansBeforeTable = 4

    mutating func position(of uuid: SubvolumeUUID, in subvolumes: [Volume]) -> Int? {
        if let byUUID { return byUUID[uuid] }
        guard scans >= Self.scansBeforeTable else {
            scans += 1
            // The last of equal UUIDs, as the table (each UUID written over the one before) answers.
            return subvolumes.withUnsafeBufferPointer { volumes in
                for index in volumes.indices.reversed() where volumes[index].uuid == uuid { return index }
                return nil
            }
        }
        var table: [SubvolumeUUID: Int] = [:]
        table.reserveCapacity(subvolumes.count)
        subvolumes.withUnsafeBufferPointer { volumes in
            for index in volumes.indices { table[volumes[index].uuid] = index }
        }
        byUUID = table
        return table[uuid]
    }
}

/// The verdicts of the owners that decide by directory, for the last directory: the
/// snapshots of one directory (ten thousand in one, for some) share them, so each such
/// owner looks once.
private struct HintMemo {
    private var directory: [UInt8] = []
    private var mountedDirectory: [UInt8]?
    private var found: [Bool] = []

    /// For each owner that decides by directory, its `mayOwn` of the directory parts of
    /// `bytes` (false for the others), asked again only when the directories differ from the last.
    mutating func verdicts(
        _ owners: [any SnapshotOwner], _ looks: [SnapshotClassifier.FirstLook], in bytes: OwnerPathBytes,
        context: OwnerContext
    ) -> [Bool] {
        let path = Self.directoryPart(bytes.path.buffer)
        let mounted = bytes.mounted.map { Self.directoryPart($0.buffer) }
        let same =
            found.count == owners.count && Self.equal(path, directory)
            && (mounted.map { here in mountedDirectory.map { known in Self.equal(here, known) } ?? false }
                ?? (mountedDirectory == nil))
        if same { return found }
        directory = Array(path); mountedDirectory = mounted.map(Array.init)
        let parts = OwnerPathBytes(
            path: .init(buffer: path), mounted: mounted.map { .init(buffer: $0) }, last: bytes.last,
            readOnly: bytes.readOnly)
        found = owners.indices.map { index in
            guard case .byDirectory = looks[index] else { return false }
            return owners[index].mayOwn(parts, context: context)
        }
        return found
    }

    /// Byte for byte, eight at a time (the generic `elementsEqual` cost more than the search it spares).
    private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ known: [UInt8]) -> Bool {
        guard bytes.count == known.count else { return false }
        return known.withUnsafeBytes { other in
            let one = UnsafeRawBufferPointer(bytes)
            var offset = 0
            while offset + 8 <= one.count {
                guard
                    one.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                        == other.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                else { return false }
                offset += 8
            }
            while offset < one.count {
                guard one[offset] == other[offset] else { return false }
                offset += 1
            }
            return true
        }
    }

    /// The bytes up to and including the last "/" (none when there is no "/").
    private static func directoryPart(_ buffer: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var end = buffer.count
        while end > 0 && buffer[end - 1] != UInt8(ascii: "/") { end -= 1 }
        return UnsafeBufferPointer(rebasing: buffer[..<end])
    }
}
