import CarveCore
import Foundation

/// An in-memory `SnapshotBackend`: filesystems, their subvolumes and quota state,
/// and failures injected on chosen calls. Deletion tests extend it; every call is
/// recorded in `calls` so a test can say what a command asked for.
public final class FakeSnapshotBackend: SnapshotBackend, OwnerHousekeeping, @unchecked Sendable {
    /// One filesystem as the fake holds it.
    public struct StoredFilesystem: Sendable {
        public var filesystem: Filesystem
        public var subvolumes: [Volume]
        /// nil: quotas enabled and consistent, sizes come from the subvolumes.
        /// Otherwise why quota sizes are unknown, e.g. "quotas are off on /mnt".
        public var quotaProblem: String?
        public var warnings: [String]
        /// What `--sizes exact` finds (an extent map); nil: the fake cannot scan.
        public var exact: ExactSizes? = nil
        /// The file extent references of its trees, which `snapshots pinned` reads
        /// (`FakeSnapshotBackend+Pinned.swift`); `exact` should be made of them.
        public var files: [FakeFileReference] = []
        public init(filesystem: Filesystem, subvolumes: [Volume], quotaProblem: String? = nil, warnings: [String] = [])
        {
            self.filesystem = filesystem; self.subvolumes = subvolumes
            self.quotaProblem = quotaProblem; self.warnings = warnings
        }
    }

    /// The calls a fake can be told to fail.
    public enum Call: Hashable, Sendable {
        case mountedFilesystems
        case filesystemContaining(String)
        /// Listing the filesystem with this UUID.
        case subvolumes(String)
        // Deletion (FakeSnapshotBackend+Deletion.swift), by subvolume id or filesystem UUID.
        case currentState(UInt64)
        case delete(UInt64)
        case removeMetadata(UInt64)
        case waitForCleanup(String)
        case spaceUsage(String)
        // Interrupted deletions (FakeSnapshotBackend+Interrupted.swift), by subvolume id,
        // filesystem UUID or `.snapshots/N` path.
        case markDeletion(UInt64)
        case unmarkDeletion(UInt64)
        case markedDirectories(String)
        case finishInterrupted(String)
        case dropMarker(String)
        /// Reading which files only a set holds, on the filesystem with this UUID.
        case pinnedFiles(String)
    }

    private let lock = NSLock()
    private var stored: [StoredFilesystem]
    /// Paths outside any fake btrfs filesystem, with the error `filesystem(containing:)` throws.
    private var foreignPaths: [String: any Error & Sendable] = [:]
    private var failures: [Call: [any Error & Sendable]] = [:]
    private var recorded: [Call] = []
    private var scans = 0
    private var snapper = FakeSnapperDirectories()

    public init(_ filesystems: [StoredFilesystem] = []) { stored = filesystems }

    public var filesystems: [StoredFilesystem] {
        get { locked { stored } }
        set { locked { stored = newValue } }
    }

    public var calls: [Call] { locked { recorded } }

    /// How many listings read the fake's extent map (`--sizes exact`, or auto without quotas):
    /// the scans a real backend would have made.
    public var exactScans: Int { locked { scans } }

    /// snapper's `.snapshots/N` directories beyond those of the stored snapshots: markers, orphans, configs.
    public var snapperDirectories: FakeSnapperDirectories {
        get { locked { snapper } }
        set { locked { snapper = newValue } }
    }

    /// Makes the next call(s) of `call` throw, one queued error per call, in order.
    public func fail(_ call: Call, with error: any Error & Sendable, times: Int = 1) {
        locked { failures[call, default: []].append(contentsOf: Array(repeating: error, count: times)) }
    }

    /// Makes `filesystem(containing: path)` throw `error` (e.g. the path is on ext4).
    public func setForeign(_ path: String, error: any Error & Sendable) { locked { foreignPaths[path] = error } }

    public func mountedFilesystems() throws -> [Filesystem] {
        try begin(.mountedFilesystems)
        return locked { stored.map(\.filesystem) }
    }

    /// The filesystem whose mountpoint is the longest prefix of `path`.
    public func filesystem(containing path: String) throws -> Filesystem {
        try begin(.filesystemContaining(path))
        if let error = locked({ foreignPaths[path] }) { throw error }
        let best = locked { stored }.flatMap { fs in fs.filesystem.mounts.map { (fs.filesystem, $0.mountpoint) } }
            .filter { Self.path(path, isInside: $0.1) }
            .max { $0.1.count < $1.1.count }
        guard let best else { throw UsageError("\(path): no such file or directory") }
        return best.0
    }

    /// Through Foundation: it cannot name bytes that are not UTF-8, which the real
    /// backend's realpath(3) does.
    public func resolvedPath(_ path: String) -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    public var workingDirectory: String { FileManager.default.currentDirectoryPath }

    /// The stored volume whose mounted path is `path`, as the real statfs would place it.
    public func locate(_ path: String, among filesystems: [Filesystem]) -> VolumeLocation? {
        let wanted = Set(filesystems.map(\.uuid))
        for fake in locked({ stored }) where wanted.contains(fake.filesystem.uuid) {
            if let volume = fake.subvolumes.first(where: { $0.mountedPath == path }) {
                return VolumeLocation(filesystem: fake.filesystem, volumeID: volume.id)
            }
        }
        return nil
    }

    public func subvolumes(of filesystem: Filesystem, sizes: SizeMode) throws -> VolumeListing {
        try begin(.subvolumes(filesystem.uuid))
        guard let fake = locked({ stored.first { $0.filesystem.uuid == filesystem.uuid } }) else {
            throw RuntimeError("no btrfs filesystem \(filesystem.uuid)")
        }
        var subvolumes = fake.subvolumes
        var note: String?
        var mode = sizes == .auto ? SizeMode.quota : sizes
        // auto: quota sizes when the fake's quotas are fine, else its exact scan when it has one.
        if sizes == .exact || (sizes == .auto && fake.quotaProblem != nil && fake.exact != nil) {
            guard let exact = fake.exact else { throw RuntimeError("exact sizes are not implemented yet") }
            locked { scans += 1 }
            // As the real scan does, once per tree read.
            ExtentScanObserver.current?(
                ExtentScanProgress(
                    subvolumesDone: exact.scan.subvolumes, subvolumesTotal: exact.scan.subvolumes,
                    bytesRead: exact.scan.bytesRead))
            var listing = VolumeListing(
                filesystem: fake.filesystem, subvolumes: subvolumes, sizes: .none, warnings: fake.warnings)
            listing.attach(exact)
            return listing
        }
        if mode == .none || fake.quotaProblem != nil {
            note = mode == .none ? nil : fake.quotaProblem
            mode = .none
            for index in subvolumes.indices { subvolumes[index].exclusive = nil; subvolumes[index].referenced = nil }
        }
        return VolumeListing(
            filesystem: fake.filesystem, subvolumes: subvolumes, sizes: mode, sizeNote: note, warnings: fake.warnings)
    }

    /// Records the call, then throws its next injected failure if one is queued.
    public func begin(_ call: Call) throws {
        let failure: (any Error)? = locked {
            recorded.append(call)
            guard var queue = failures[call], !queue.isEmpty else { return nil }
            let first = queue.removeFirst()
            failures[call] = queue
            return first
        }
        if let failure { throw failure }
    }

    public func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    static func path(_ path: String, isInside mountpoint: String) -> Bool {
        mountpoint == "/" || path == mountpoint || path.hasPrefix(mountpoint + "/")
    }
}
