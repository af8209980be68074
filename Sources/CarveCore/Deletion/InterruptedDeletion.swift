/// A backend that can close the gap between deleting a snapper snapshot's subvolume
/// and removing its `.snapshots/N`: before the subvolume goes, a marker file
/// (`N/.carve-deleting`) is made durable in N; the metadata removal takes it with N.
/// A run killed in between leaves N with the marker and without `snapshot`, and
/// the next run, holding the lock, finishes it. A backend without this (a listing
/// fake) leaves no marker, as carve did before.
public protocol InterruptedDeletionMarking: Sendable {
    /// Writes the marker into the snapshot's snapper directory and makes it durable;
    /// false when the snapshot is not snapper's (nothing to mark).
    func markDeletion(of subvolume: Subvolume, on filesystem: BtrfsFilesystem) throws -> Bool
    /// Removes the marker after a deletion that did not happen.
    func unmarkDeletion(of subvolume: Subvolume, on filesystem: BtrfsFilesystem) throws
    /// The numbered directories holding the marker, in snapper's `.snapshots`
    /// directories on `filesystem`: every config's and `seen` (mounted paths).
    /// Unmarked directories are never returned, whatever they hold.
    func markedSnapperDirectories(on filesystem: BtrfsFilesystem, seen: [String]) throws -> MarkedDirectoryScan
    /// Removes the directory, only if it still holds the marker and no `snapshot`;
    /// false when something inside (a subvolume, a mount) keeps it.
    func finishInterruptedDeletion(_ directory: MarkedSnapperDirectory) throws -> Bool
    /// Unlinks the marker of a directory whose snapshot is still there.
    func dropDeletionMarker(_ directory: MarkedSnapperDirectory) throws
}

/// The marker's file name inside snapper's `.snapshots/N`.
public let interruptedDeletionMarkerName = ".carve-deleting"

/// A snapper `.snapshots/N` holding carve's marker.
public struct MarkedSnapperDirectory: Sendable, Hashable {
    /// Its mounted path, e.g. "/mnt/data/.snapshots/7".
    public var path: String
    /// The snapper config whose `.snapshots` holds it, when one does.
    public var config: String?
    public var number: Int
    /// True when `N/snapshot` still exists: the interrupted run died before deleting it.
    public var snapshotPresent: Bool

    public init(path: String, config: String?, number: Int, snapshotPresent: Bool) {
        self.path = path; self.config = config; self.number = number; self.snapshotPresent = snapshotPresent
    }

    /// `CONFIG:N (path)`, or the path alone without a config.
    public var displayName: String { config.map { "\($0):\(number) (\(path))" } ?? path }
}

/// What a scan of one filesystem found, and what it could not read.
public struct MarkedDirectoryScan: Sendable {
    public var directories: [MarkedSnapperDirectory]
    public var warnings: [String]
    public init(directories: [MarkedSnapperDirectory] = [], warnings: [String] = []) {
        self.directories = directories; self.warnings = warnings
    }
}

/// A filesystem a run works on and the snapper `.snapshots` directories its listing showed.
public struct InterruptedDeletionScope: Sendable {
    public var filesystem: BtrfsFilesystem
    public var snapperDirectories: [String]
    public init(filesystem: BtrfsFilesystem, snapperDirectories: [String] = []) {
        self.filesystem = filesystem; self.snapperDirectories = snapperDirectories
    }

    /// One scope per listing: a snapper directory without a config is found through
    /// the snapshots of it that are listed.
    public static func from(_ listings: [SubvolumeListing]) -> [InterruptedDeletionScope] {
        listings.map { listing in
            var seen: [String] = []
            for subvolume in listing.subvolumes where subvolume.metadata.manager == .snapper {
                guard let path = subvolume.metadata.metadataPath, let slash = path.lastIndex(of: "/") else { continue }
                let parent = String(path[..<slash])
                if !parent.isEmpty, !seen.contains(parent) { seen.append(parent) }
            }
            return InterruptedDeletionScope(filesystem: listing.filesystem, snapperDirectories: seen)
        }
    }
}

/// What finishing the leftovers of interrupted runs did (or, in a dry run, would do).
public struct InterruptedDeletionReport: Sendable {
    public var dryRun: Bool
    /// Directories removed: their subvolume was gone.
    public var finished: [MarkedSnapperDirectory] = []
    /// Markers removed: their snapshot is still there.
    public var markersDropped: [MarkedSnapperDirectory] = []
    public var warnings: [String] = []

    public init(dryRun: Bool) { self.dryRun = dryRun }

    public var isEmpty: Bool { finished.isEmpty && markersDropped.isEmpty && warnings.isEmpty }
    /// True when there is something to change (what a dry run found).
    public var hasWork: Bool { !finished.isEmpty || !markersDropped.isEmpty }

    /// One line each, for stderr.
    public var lines: [String] {
        let (finish, drop) = dryRun ? ("would finish", "would remove") : ("finished", "removed")
        return finished.map { "\(finish) removing the metadata of snapper snapshot \($0.displayName) left by an interrupted run" }
            + markersDropped.map { "\(drop) the deletion marker of snapper snapshot \($0.displayName): an interrupted run had not deleted it" }
            + warnings.map { "warning: \($0)" }
    }
}

/// Finishes what killed runs left: a marked directory without its subvolume is
/// removed, the marker of one whose subvolume is still there is dropped, and an
/// unmarked directory is never touched. Runs under the deletion lock, so no marker
/// it sees belongs to a live run. Nothing it meets fails the run: each problem is a
/// warning, and the directory stays for the next run.
public struct InterruptedDeletionSweep: Sendable {
    public let backend: any SnapshotBackend
    public let dryRun: Bool

    public init(backend: any SnapshotBackend, dryRun: Bool) { self.backend = backend; self.dryRun = dryRun }

    public func run(_ scopes: [InterruptedDeletionScope]) -> InterruptedDeletionReport {
        var report = InterruptedDeletionReport(dryRun: dryRun)
        guard let marking = backend as? any InterruptedDeletionMarking else { return report }
        for scope in scopes {
            let scan: MarkedDirectoryScan
            do {
                scan = try marking.markedSnapperDirectories(on: scope.filesystem, seen: scope.snapperDirectories)
            } catch {
                report.warnings.append("cannot look for deletions left unfinished on \(scope.filesystem.mountpoint): \(Self.reason(error))")
                continue
            }
            report.warnings += scan.warnings
            for directory in scan.directories { resolve(directory, marking, into: &report) }
        }
        return report
    }

    private func resolve(_ directory: MarkedSnapperDirectory, _ marking: any InterruptedDeletionMarking, into report: inout InterruptedDeletionReport) {
        do {
            if directory.snapshotPresent {
                if !dryRun { try marking.dropDeletionMarker(directory) }
                report.markersDropped.append(directory)
            } else if try dryRun || marking.finishInterruptedDeletion(directory) {
                report.finished.append(directory)
            } else {
                report.warnings.append("left \(directory.path) of an interrupted run as it is: it holds a subvolume or a mount")
            }
        } catch {
            report.warnings.append("cannot finish the interrupted deletion of snapper snapshot \(directory.displayName): \(Self.reason(error))")
        }
    }

    /// An error's message without the type's decoration.
    public static func reason(_ error: any Error) -> String {
        (error as? any ReportableError)?.message ?? "\(error)"
    }
}
