import CarveCore

/// One line per snapshot gone (the audit trail, stderr and optionally syslog), and
/// one per snapshot that could not be deleted, with its reason.
enum AuditTrail {
    static func lines(for outcome: DeletionOutcome) -> [String] {
        let snapshot = outcome.snapshot
        let path = escapedForTable(snapshot.displayPath)
        let id = String(snapshot.subvolume.id)
        var lines: [String]
        switch outcome.result {
        case .deleted: lines = [joined("carve: deleted snapshot ", path, " (id ", id, ")")]
        case .alreadyGone:
            lines = [joined("carve: snapshot ", path, " (id ", id, ") was already gone: counted as deleted")]
        case .refused, .failed, .failedToDelete:
            lines = [
                joined(
                    "carve: cannot delete snapshot ", path, " (id ", id, "): ", escapedForTable(outcome.errorText ?? "")
                )
            ]
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

    /// The pieces as one string, allocated once: a run writes a line per snapshot
    /// deleted, and interpolating grew each line piece by piece (half its cost).
    private static func joined(
        _ a: String, _ b: String, _ c: String, _ d: String, _ e: String, _ f: String = ""
    )
        -> String
    {
        var pieces = (a, b, c, d, e, f)
        let length = a.utf8.count + b.utf8.count + c.utf8.count + d.utf8.count + e.utf8.count + f.utf8.count
        return String(unsafeUninitializedCapacity: length) { buffer in
            var at = 0
            func copy(_ piece: inout String) {
                piece.withUTF8 { bytes in
                    _ = UnsafeMutableBufferPointer(rebasing: buffer[at...]).initialize(fromContentsOf: bytes)
                    at += bytes.count
                }
            }
            copy(&pieces.0); copy(&pieces.1); copy(&pieces.2); copy(&pieces.3); copy(&pieces.4); copy(&pieces.5)
            return at
        }
    }

    static func syslogLine(for outcome: DeletionOutcome) -> String {
        let snapshot = outcome.snapshot
        let how = if case .alreadyGone = outcome.result { "found already deleted" } else { "deleted" }
        return
            "\(how) snapshot \(snapshot.displayPath) (id \(snapshot.subvolume.id), filesystem \(snapshot.filesystem.uuid))"
    }
}
