/// Decides which subvolumes are snapshots and attaches what their manager recorded.
///
/// A subvolume is a snapshot when it has a parent UUID or lies in a known layout:
/// snapper `…/.snapshots/N/snapshot`, timeshift `timeshift-btrfs/snapshots/NAME/@…`,
/// btrbk `SUBVOL.YYYYMMDD[THHMM[SS]][_N]` (read-only). Metadata files are read
/// through the snapshot's mounted path; a broken file leaves the snapshot listed
/// as plain with a warning naming the file, and the listing goes on.
public struct SnapshotClassifier: Sendable {
    /// A snapper config's `.snapshots` directory, located on this filesystem.
    public struct SnapperDirectory: Sendable, Hashable {
        public var config: String
        /// The `.snapshots` directory's path from the top level, e.g. "@snapshots" or "@home/.snapshots".
        public var topLevelPath: String
        /// The config's UNIQUE_NUMBERS.
        public var uniqueNumbers: Bool
        public init(config: String, topLevelPath: String, uniqueNumbers: Bool = false) {
            self.config = config; self.topLevelPath = topLevelPath; self.uniqueNumbers = uniqueNumbers
        }
    }

    /// Reads at most `limit` bytes of a metadata file; nil when it does not exist.
    /// Throws when it exists and cannot be read (the error's description is the reason).
    public typealias FileReader = @Sendable (_ path: String, _ limit: Int) throws -> [UInt8]?

    public var snapperDirectories: [SnapperDirectory]
    public var readFile: FileReader
    public var timeZone: TimeZone
    /// Looks beside an engine's subvolumes for the files that tell engines apart.
    public var probe: OwnerProbe

    public init(
        snapperDirectories: [SnapperDirectory] = [], timeZone: TimeZone, readFile: @escaping FileReader,
        probe: @escaping OwnerProbe = { _ in false }
    ) {
        self.snapperDirectories = snapperDirectories; self.readFile = readFile; self.timeZone = timeZone
        self.probe = probe
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
        var byUUID: [String: Int] = [:]
        byUUID.reserveCapacity(subvolumes.count)
        var parents = Set<UInt64>()
        for index in subvolumes.indices {
            byUUID[subvolumes[index].uuid] = index
            parents.insert(subvolumes[index].parentID)
        }
        let recognised = recogniseEach(subvolumes)
        var warnings: [String] = []
        for index in subvolumes.indices {
            // A received snapshot's parent UUID is the previous backup, not its source (BackupChains).
            if subvolumes[index].receivedUUID == nil, let parentUUID = subvolumes[index].parentUUID,
                let source = byUUID[parentUUID]
            {
                subvolumes[index].sourceID = subvolumes[source].id
                subvolumes[index].sourcePath = subvolumes[source].path
            }
            subvolumes[index].hasNestedSubvolumes = parents.contains(subvolumes[index].id)
            let (metadata, warning) = recognised[index]
            if let warning { warnings.append(warning) }
            if let metadata {
                subvolumes[index].metadata = metadata
            } else if subvolumes[index].metadata != .plain {
                subvolumes[index].metadata = .plain
            }
            subvolumes[index].isSnapshot = subvolumes[index].parentUUID != nil || metadata != nil
            subvolumes[index].created = metadata?.created ?? subvolumes[index].otime
            if let disagreement = Self.dateDisagreement(subvolumes[index]) { warnings.append(disagreement) }
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

    /// `recognise` for each subvolume, read from a borrowed array (reading them from the
    /// inout array being classified copied each one).
    private func recogniseEach(_ subvolumes: [Volume]) -> [(ManagerMetadata?, String?)] {
        subvolumes.indices.map { recognise(subvolumes[$0]) }
    }

    /// The manager's metadata when the subvolume is in a known layout, else nil.
    func recognise(_ subvolume: borrowing Volume) -> (ManagerMetadata?, String?) {
        if let engine = recogniseEngine(subvolume) { return (engine, nil) }
        switch Self.layoutHint(subvolume.path, readOnly: subvolume.readOnly) {
        case .none: return (nil, nil)
        case .components: return recogniseByComponents(subvolume)
        case .btrbk(let name):
            guard let parsed = BtrbkName.parse(name, timeZone: timeZone) else {
                guard BtrbkName.hasStampShape(name) else { return (nil, nil) }
                return (
                    nil,
                    "\(subvolume.path): the date in this btrbk-style name is impossible; the snapshot is listed as plain"
                )
            }
            return (ManagerMetadata(manager: .btrbk, name: name, created: parsed.created), nil)
        }
    }

    /// The container engine whose storage holds the subvolume, if one does: engines are
    /// asked first, so nothing inside their storage passes for a manager's snapshot.
    /// Most paths hold none of the engines' hints and are passed over in a byte scan.
    private func recogniseEngine(_ subvolume: borrowing Volume) -> ManagerMetadata? {
        guard
            SnapshotOwners.engineHints.contains(where: {
                Self.contains(subvolume.path, $0) || Self.contains(subvolume.mountedPath, $0)
            })
        else { return nil }
        let place = OwnerPlace(path: subvolume.path, mountedPath: subvolume.mountedPath, readOnly: subvolume.readOnly)
        for owner in SnapshotOwners.engines {
            if let metadata = owner.recognise(place, probe: probe) { return metadata }
        }
        return nil
    }

    private static func contains(_ path: String?, _ needle: StaticString) -> Bool {
        guard let path else { return false }
        return path.utf8.withContiguousStorageIfAvailable { contains($0, needle) }
            ?? Array(path.utf8).withUnsafeBufferPointer { contains($0, needle) }
    }

    /// Which layout a path may be in, from its bytes alone: most subvolumes match none,
    /// and splitting every path into Strings (or even indexing its UTF-8 view) cost more
    /// than reading the subvolume from the kernel.
    enum LayoutHint: Equatable {
        case none
        /// Ends in `/snapshot`, or an `@…` name below `timeshift-btrfs/`: look at the components.
        case components
        /// A read-only subvolume whose name has a '.' and eight digits: worth parsing as btrbk's.
        case btrbk(String)
    }

    static func layoutHint(_ path: String, readOnly: Bool) -> LayoutHint {
        let hint = path.utf8.withContiguousStorageIfAvailable { layoutHint($0, readOnly: readOnly) }
        return hint ?? Array(path.utf8).withUnsafeBufferPointer { layoutHint($0, readOnly: readOnly) }
    }

    private static func layoutHint(_ bytes: UnsafeBufferPointer<UInt8>, readOnly: Bool) -> LayoutHint {
        var start = bytes.count
        while start > 0 && bytes[start - 1] != UInt8(ascii: "/") { start -= 1 }
        let last = UnsafeBufferPointer(rebasing: bytes[start...])
        if last.elementsEqual("snapshot".utf8) { return .components }
        if last.first == UInt8(ascii: "@"), contains(bytes, "timeshift-btrfs/") { return .components }
        guard readOnly, let dot = last.lastIndex(of: UInt8(ascii: ".")) else { return .none }
        var digits = 0
        for byte in last[(dot + 1)...].prefix(8) where byte >= 0x30 && byte <= 0x39 { digits += 1 }
        return digits == 8 ? .btrbk(String(decoding: last, as: UTF8.self)) : .none
    }

    private static func contains(_ bytes: UnsafeBufferPointer<UInt8>, _ needle: StaticString) -> Bool {
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        guard let first = pattern.first, bytes.count >= pattern.count else { return false }
        // Compares the rest only where the first byte matches: a path is scanned once per hint.
        for offset in 0...(bytes.count - pattern.count) where bytes[offset] == first {
            if UnsafeBufferPointer(rebasing: bytes[offset..<offset + pattern.count]).elementsEqual(pattern) {
                return true
            }
        }
        return false
    }

    private func recogniseByComponents(_ subvolume: Volume) -> (ManagerMetadata?, String?) {
        let components = subvolume.path.split(separator: "/").map(String.init)
        if components.count >= 3, components[components.count - 1] == "snapshot",
            let number = Int(components[components.count - 2]), components[components.count - 2].allSatisfy(\.isASCII)
        {
            // `.snapshots` may itself be a subvolume mounted there (`@snapshots` on /.snapshots).
            let directory = components.dropLast(2).joined(separator: "/")
            if components[components.count - 3] == ".snapshots"
                || snapperDirectories.contains(where: { $0.topLevelPath == directory })
            {
                return snapper(subvolume, number: number, snapshotsDirectory: directory)
            }
        }
        if components.count >= 4, components[components.count - 4] == "timeshift-btrfs",
            components[components.count - 3] == "snapshots", components[components.count - 1].hasPrefix("@")
        {
            return timeshift(subvolume, name: components[components.count - 2])
        }
        return (nil, nil)
    }

    private func snapper(_ subvolume: Volume, number: Int, snapshotsDirectory: String) -> (ManagerMetadata?, String?) {
        let directory = snapperDirectories.first { $0.topLevelPath == snapshotsDirectory }
        let config = directory?.config
        var layout = ManagerMetadata(manager: .snapper, config: config, number: number)
        layout.uniqueNumbers = directory?.uniqueNumbers ?? false
        guard let mounted = subvolume.mountedPath else {
            layout.warning = "not mounted: info.xml not read"
            return (layout, nil)
        }
        let infoPath = String(mounted.dropLast("/snapshot".count)) + "/info.xml"
        layout.metadataPath = String(mounted.dropLast("/snapshot".count))
        do {
            guard let data = try readFile(infoPath, SnapperInfo.maximumSize + 1) else {
                layout.warning = "no info.xml"
                return (layout, nil)
            }
            var metadata = try SnapperInfo.parse(data, config: config)
            metadata.metadataPath = layout.metadataPath
            metadata.uniqueNumbers = layout.uniqueNumbers
            if metadata.number != number {
                return (
                    nil, brokenWarning(infoPath, "it says number \(metadata.number ?? -1), the directory is \(number)")
                )
            }
            return (metadata, nil)
        } catch {
            return (nil, brokenWarning(infoPath, "\(error)"))
        }
    }

    private func timeshift(_ subvolume: Volume, name: String) -> (ManagerMetadata?, String?) {
        var layout = ManagerMetadata(
            manager: .timeshift, name: name, created: TimeshiftInfo.date(fromName: name, timeZone: timeZone))
        guard let mounted = subvolume.mountedPath else {
            layout.warning = "not mounted: info.json not read"
            return (layout, nil)
        }
        let directory = String(mounted[..<(mounted.lastIndex(of: "/") ?? mounted.endIndex)])
        layout.metadataPath = directory
        let infoPath = directory + "/info.json"
        do {
            guard let data = try readFile(infoPath, TimeshiftInfo.maximumSize + 1) else {
                layout.warning = "no info.json"
                return (layout, nil)
            }
            var metadata = try TimeshiftInfo.parse(data, name: name)
            metadata.metadataPath = directory
            if metadata.created == nil { metadata.created = layout.created }
            return (metadata, nil)
        } catch {
            return (nil, brokenWarning(infoPath, "\(error)"))
        }
    }

    private func brokenWarning(_ path: String, _ reason: String) -> String {
        "cannot use \(path): \(reason); the snapshot is listed as plain"
    }
}
