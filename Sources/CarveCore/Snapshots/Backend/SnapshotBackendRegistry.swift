/// The backends carve knows, one per filesystem kind, each registered with the
/// abilities it has. It is itself a `SnapshotBackend`, and answers only what it can:
/// every call about a filesystem goes to the backend of that filesystem's kind (the
/// factory is `backend(for:)`), so planners and commands work on btrfs and LVM alike;
/// asking a listing-only backend to delete is a `RuntimeError` that says so; paths are
/// read by the one `PathResolving` it was made with. A new filesystem is its backend
/// plus one `register` line.
public struct SnapshotBackendRegistry: SnapshotBackend {
    private var listers: [(kind: FilesystemKind, backend: any SnapshotListing)] = []
    private var full: [FilesystemKind: any SnapshotBackend] = [:]
    /// The full backends that delete in batches, cast once when registered: the cast
    /// cost more than the rest of asking a batch key, before each snapshot of a run.
    private var batching: [FilesystemKind: any SnapshotBatchDeleting] = [:]
    private let paths: any PathResolving
    /// The host's side of owner recognition, for every backend's listings (`OwnerClassification`).
    public var owners: any OwnerPreparing = NoOwnerPreparing()

    /// The registry of `backend`, which has every ability, for the filesystems of
    /// `kind`; it reads the paths on the command line too.
    public init(_ backend: some SnapshotBackend, for kind: FilesystemKind) {
        paths = backend
        register(backend, for: kind)
    }

    /// A backend with every ability; it replaces the kind's backend, if any.
    public mutating func register(_ backend: some SnapshotBackend, for kind: FilesystemKind) {
        register(listingOnly: backend, for: kind)
        full[kind] = backend
        batching[kind] = backend as? any SnapshotBatchDeleting
    }

    /// A backend that only lists; it replaces the kind's backend, if any.
    public mutating func register(listingOnly backend: some SnapshotListing, for kind: FilesystemKind) {
        if let index = listers.firstIndex(where: { $0.kind == kind }) {
            listers[index] = (kind, backend)
            full[kind] = nil
            batching[kind] = nil
        } else {
            listers.append((kind, backend))
        }
    }

    /// The lister of a filesystem kind.
    public func backend(for kind: FilesystemKind) throws -> any SnapshotListing {
        guard let backend = listers.first(where: { $0.kind == kind })?.backend else {
            throw RuntimeError("carve has no backend for \(kind.rawValue) filesystems")
        }
        return backend
    }

    /// The backend that deletes on `filesystem`; a listing-only one cannot.
    func deleter(for filesystem: Filesystem) throws -> any SnapshotBackend {
        guard let backend = full[filesystem.kind] else {
            throw RuntimeError(
                "snapshots on \(filesystem.mountpoint) (\(filesystem.kind.rawValue)) cannot be deleted by carve: its backend only lists them"
            )
        }
        return backend
    }

    // MARK: listing, by the backend of each filesystem

    public func mountedFilesystems() throws -> [Filesystem] {
        try listers.flatMap { try $0.backend.mountedFilesystems() }
    }

    public func mountedFilesystems(ofKind kind: FilesystemKind) throws -> [Filesystem] {
        try listers.filter { $0.kind == kind }.flatMap { try $0.backend.mountedFilesystems() }
    }

    /// The backend that claims the name as its own (ZFS's `pool/dataset`); else the first
    /// backend whose kind the path is on; when none, the error of a backend whose kind of
    /// name it may be (ZFS's, saying `zfs` is not installed), else the first backend's
    /// (btrfs's: which filesystem the path is on instead).
    public func filesystem(containing path: String) throws -> Filesystem {
        if let owner = listers.first(where: { $0.backend.claims(path) == .yes }) {
            return try owner.backend.filesystem(containing: path)
        }
        var first: (any Error)?, claimed: (any Error)?
        for lister in listers {
            do {
                return try lister.backend.filesystem(containing: path)
            } catch {
                first = first ?? error
                if claimed == nil, lister.backend.claims(path) == .ifNothingElse { claimed = error }
            }
        }
        throw claimed ?? first ?? RuntimeError("\(path): carve has no snapshot backend")
    }

    /// The strongest claim of any backend; asked once per named path, so no array is made for it.
    public func claims(_ name: String) -> NameClaim {
        var claim = NameClaim.no
        for lister in listers { claim = max(claim, lister.backend.claims(name)) }
        return claim
    }

    public func resolvedPath(_ path: String) -> String? { paths.resolvedPath(path) }
    public var workingDirectory: String { paths.workingDirectory }

    public func locate(_ path: String, among filesystems: [Filesystem]) -> VolumeLocation? {
        for lister in listers where filesystems.contains(where: { $0.kind == lister.kind }) {
            // Asked once per named path: the filesystems are copied only when other kinds are mixed in.
            let own =
                filesystems.allSatisfy { $0.kind == lister.kind }
                ? filesystems : filesystems.filter { $0.kind == lister.kind }
            if let location = lister.backend.locate(path, among: own) { return location }
        }
        return nil
    }

    /// The backend's plain volumes, classified by their owners, then finished by the backend.
    public func subvolumes(of filesystem: Filesystem, sizes: SizeMode) throws -> VolumeListing {
        let lister = try backend(for: filesystem.kind)
        var listing = try lister.subvolumes(of: filesystem, sizes: sizes)
        try classify(&listing, by: lister, sizes: sizes)
        return listing
    }

    public func chainRelatives(
        on filesystem: Filesystem, receivedFrom sent: [SubvolumeUUID], withUUIDs sources: [SubvolumeUUID]
    ) throws -> VolumeListing {
        let lister = try backend(for: filesystem.kind)
        var listing = try lister.chainRelatives(on: filesystem, receivedFrom: sent, withUUIDs: sources)
        try classify(&listing, by: lister, sizes: .none)
        return listing
    }

    /// In place, the listing held once: a copy would copy ten thousand volumes on the
    /// first change. A listing that already has its owners (a fake's) stays as it is.
    private func classify(_ listing: inout VolumeListing, by lister: any SnapshotListing, sizes: SizeMode) throws {
        guard listing.ownerFacts != nil else { return }
        OwnerClassification(host: owners).classify(&listing)
        try lister.finishListing(&listing, sizes: sizes)
    }

    // MARK: deleting and waiting, only where the backend can

    public func currentState(of subvolume: Volume, on filesystem: Filesystem) throws -> Volume? {
        try deleter(for: filesystem).currentState(of: subvolume, on: filesystem)
    }

    public func refreshingCloneState(of subvolume: Volume, on filesystem: Filesystem) throws -> Volume {
        try deleter(for: filesystem).refreshingCloneState(of: subvolume, on: filesystem)
    }

    public func nestedVolumes(of subvolume: Volume, on filesystem: Filesystem) throws -> [Volume] {
        let backend = try deleter(for: filesystem)
        guard backend is any NestedInListing else { return try backend.nestedVolumes(of: subvolume, on: filesystem) }
        return NestedVolumes([try subvolumes(of: filesystem, sizes: .none)]).below(subvolume, on: filesystem)
    }

    public func deleteSubvolume(_ subvolume: Volume, on filesystem: Filesystem, recursive: Bool) throws {
        try deleter(for: filesystem).deleteSubvolume(subvolume, on: filesystem, recursive: recursive)
    }

    public func waitForCleanup(of ids: [UInt64], on filesystem: Filesystem) throws {
        try deleter(for: filesystem).waitForCleanup(of: ids, on: filesystem)
    }

    public func spaceUsage(of filesystem: Filesystem) throws -> SpaceUsage {
        try deleter(for: filesystem).spaceUsage(of: filesystem)
    }
}

/// Batches and measured reclaims go to the backend of the filesystem when it has them;
/// elsewhere one snapshot at a time, through the same calls as ever.
extension SnapshotBackendRegistry: SnapshotBatchDeleting, SnapshotReclaimMeasuring {
    public func deletesInBatches(_ kind: FilesystemKind) -> Bool { batching[kind] != nil }

    public func batchKey(of subvolume: Volume, on filesystem: Filesystem) -> String? {
        batching[filesystem.kind]?.batchKey(of: subvolume, on: filesystem)
    }

    public func currentStates(of subvolumes: [Volume], on filesystem: Filesystem) throws -> [Volume?] {
        if let batches = batching[filesystem.kind] {
            return try batches.currentStates(of: subvolumes, on: filesystem)
        }
        return try subvolumes.map { try currentState(of: $0, on: filesystem) }
    }

    public func deleteSubvolumes(_ subvolumes: [Volume], on filesystem: Filesystem) -> [(any Error)?] {
        if let batches = batching[filesystem.kind] {
            return batches.deleteSubvolumes(subvolumes, on: filesystem)
        }
        return subvolumes.map { subvolume in
            do {
                try deleteSubvolume(subvolume, on: filesystem, recursive: false)
                return nil
            } catch {
                return error
            }
        }
    }

    public func measuredReclaim(of subvolumes: [Volume], on filesystem: Filesystem) throws -> MeasuredReclaim? {
        try (full[filesystem.kind] as? any SnapshotReclaimMeasuring)?.measuredReclaim(of: subvolumes, on: filesystem)
    }
}
