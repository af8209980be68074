/// What finishing the leftovers of interrupted runs did (or, in a dry run, would do).
public struct InterruptedDeletionReport: Sendable {
    public var dryRun: Bool
    /// Directories removed: their subvolume was gone.
    public var finished: [MarkedDeletionDirectory] = []
    /// Markers removed: their snapper snapshot is still there.
    public var markersDropped: [MarkedDeletionDirectory] = []
    /// Marked timeshift snapshots with `@…` left: kept as they are, reported.
    public var partlyDeleted: [MarkedDeletionDirectory] = []
    public var warnings: [String] = []

    public init(dryRun: Bool) { self.dryRun = dryRun }

    public var isEmpty: Bool { finished.isEmpty && markersDropped.isEmpty && partlyDeleted.isEmpty && warnings.isEmpty }
    /// True when there is something to change (what a dry run found).
    public var hasWork: Bool { !finished.isEmpty || !markersDropped.isEmpty }

    /// One line each, for stderr.
    public var lines: [String] {
        let (finish, drop) = dryRun ? ("would finish", "would remove") : ("finished", "removed")
        return finished.map { "\(finish) removing the metadata of \($0.label) left by an interrupted run" }
            + markersDropped.map { "\(drop) the deletion marker of \($0.label): an interrupted run had not deleted it" }
            + partlyDeleted.map {
                "warning: \($0.label) may be partly deleted by an interrupted run (\($0.remaining.joined(separator: ", ")) left): "
                    + "deleting the rest with carve finishes it"
            }
            + warnings.map { "warning: \($0)" }
    }
}

/// Finishes what killed runs left: a marked directory without its subvolume is
/// removed, and an unmarked directory is never touched. A marked snapper directory
/// whose snapshot is still there loses its marker: its one subvolume was not
/// deleted, so nothing is lost. A marked timeshift DATE with `@…` left is kept,
/// marker and all: the marker cannot say whether a sibling `@…` went before the
/// kill (DATE's `@` deleted, `@home` not), and dropping it would hide that loss for
/// good once the rest goes another way; kept, it makes the deletion of the rest
/// with carve finish DATE, and it is reported. Runs under the deletion lock, so no
/// marker it sees belongs to a live run. Nothing it meets fails the run: each
/// problem is a warning, and the directory stays for the next run.
public struct InterruptedDeletionSweep: Sendable {
    /// The owners' rooms, which find, finish and drop their markers.
    public let owners: any InterruptedDeletionMarking
    public let dryRun: Bool

    public init(owners: any InterruptedDeletionMarking, dryRun: Bool) { self.owners = owners; self.dryRun = dryRun }

    public func run(_ scopes: [InterruptedDeletionScope]) -> InterruptedDeletionReport {
        var report = InterruptedDeletionReport(dryRun: dryRun)
        let marking = owners
        for scope in scopes {
            let scan: MarkedDirectoryScan
            do {
                scan = try marking.markedDirectories(in: scope)
            } catch {
                report.warnings.append(
                    "cannot look for deletions left unfinished on \(scope.filesystem.mountpoint): \(Self.reason(error))"
                )
                continue
            }
            report.warnings += scan.warnings
            for directory in scan.directories { resolve(directory, marking, into: &report) }
        }
        return report
    }

    private func resolve(
        _ directory: MarkedDeletionDirectory, _ marking: any InterruptedDeletionMarking,
        into report: inout InterruptedDeletionReport
    ) {
        do {
            if directory.snapshotPresent, SnapshotOwners.owner(directory.manager)?.markerCoversSeveralSubvolumes == true
            {
                report.partlyDeleted.append(directory)
            } else if directory.snapshotPresent {
                if !dryRun { try marking.dropDeletionMarker(directory) }
                report.markersDropped.append(directory)
            } else if try dryRun || marking.finishInterruptedDeletion(directory) {
                report.finished.append(directory)
            } else {
                report.warnings.append(
                    "left \(directory.path) of an interrupted run as it is: it holds a subvolume or a mount")
            }
        } catch {
            report.warnings.append(
                "cannot finish the interrupted deletion of \(directory.label): \(Self.reason(error, about: directory.path))"
            )
        }
    }

    /// An error's message without the type's decoration; only its cause when the
    /// error is about `object`, which the caller's words name already.
    public static func reason(_ error: any Error, about object: String? = nil) -> String {
        if let error = error as? SystemCallError, let object, error.context.hasSuffix(" " + object) {
            return error.cause
        }
        return (error as? any ReportableError)?.message ?? "\(error)"
    }
}
