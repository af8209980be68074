import CarveCore

/// One line per snapshot gone (the audit trail, stderr and optionally syslog), and
/// one per snapshot that could not be deleted, with its reason.
enum AuditTrail {
    static func lines(for outcome: DeletionOutcome) -> [String] {
        let snapshot = outcome.snapshot
        let name = "snapshot \(escapedForTable(snapshot.displayPath)) (id \(snapshot.subvolume.id))"
        var lines: [String]
        switch outcome.result {
        case .deleted: lines = ["carve: deleted \(name)"]
        case .alreadyGone: lines = ["carve: \(name) was already gone: counted as deleted"]
        case .refused, .failed, .failedToDelete:
            lines = ["carve: cannot delete \(name): \(escapedForTable(outcome.errorText ?? ""))"]
        }
        // Each line stays one line whatever the names in it, as errors and warnings do.
        if let removed = outcome.metadataRemoved {
            lines.append(
                "carve: removed its \(snapshot.subvolume.metadata.manager.rawValue) metadata \(escapedForTable(removed))"
            )
        }
        if let warning = outcome.metadataWarning { lines.append("carve: warning: \(escapedForTable(warning))") }
        return lines
    }

    static func syslogLine(for outcome: DeletionOutcome) -> String {
        let snapshot = outcome.snapshot
        let how = if case .alreadyGone = outcome.result { "found already deleted" } else { "deleted" }
        return
            "\(how) snapshot \(snapshot.displayPath) (id \(snapshot.subvolume.id), filesystem \(snapshot.filesystem.uuid))"
    }
}
