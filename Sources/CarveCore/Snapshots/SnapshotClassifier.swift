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
    /// The owners asked, in order (`SnapshotOwners.all` of the filesystem's kind), each with its path hints, read
    /// once here: asking each owner for them per subvolume built an array every time.
    private let owners: [(owner: any SnapshotOwner, hints: [StaticString])]

    public init(context: OwnerContext, owners: [any SnapshotOwner] = SnapshotOwners.all(for: .btrfs)) {
        self.context = context; self.owners = owners.map { ($0, $0.pathHints) }
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
            // Only a manager's date can disagree: a plain volume is not copied to ask.
            if metadata?.created != nil, let disagreement = Self.dateDisagreement(subvolumes[index]) {
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
    /// subvolumes whole, or from the inout array being classified, copied each one).
    private func recogniseEach(_ subvolumes: [Volume]) -> [(ManagerMetadata?, String?)] {
        subvolumes.indices.map {
            recognise(
                path: subvolumes[$0].path, mountedPath: subvolumes[$0].mountedPath, readOnly: subvolumes[$0].readOnly)
        }
    }

    /// The manager's metadata when the subvolume is in a known layout, else nil: each
    /// owner in turn has a cheap look at the path's bytes, and only those that may own it
    /// see it split into components (most subvolumes are no owner's).
    private func recognise(path: String, mountedPath: String?, readOnly: Bool) -> (ManagerMetadata?, String?) {
        OwnerPathBytes.with(path, mountedPath, readOnly: readOnly) { bytes in
            var place: OwnerPlace?
            for (owner, hints) in owners where hints.isEmpty ? owner.mayOwn(bytes) : bytes.containsAny(hints) {
                let here = place ?? OwnerPlace(path: path, mountedPath: mountedPath, readOnly: readOnly)
                place = here
                if let verdict = owner.recognise(here, context: context) { return (verdict.metadata, verdict.warning) }
            }
            return (nil, nil)
        }
    }

    /// Why an owner's metadata file is not used.
    static func brokenWarning(_ path: String, _ reason: String) -> String {
        "cannot use \(path): \(reason); the snapshot is listed as plain"
    }
}
