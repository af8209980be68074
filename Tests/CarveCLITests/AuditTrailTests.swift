@testable import CarveCLI
import CarveCore
import Foundation
import Testing

/// The audit line of a deleted snapshot names its path as the tables do: control
/// characters and backslashes escaped, everything else (spaces, UTF-8) as it is.
@Suite struct AuditTrailTests {
    @Test(arguments: [
        ("/mnt/snaps/plain.1", "/mnt/snaps/plain.1"),
        ("/mnt/snaps/with space/é日本", "/mnt/snaps/with space/é日本"),
        ("/mnt/snaps/new\nline", "/mnt/snaps/new\\x0aline"),
        ("/mnt/snaps/tab\tback\\slash\u{7f}", "/mnt/snaps/tab\\x09back\\x5cslash\\x7f"),
    ])
    func theDeletedLineEscapesWhatATableEscapes(path: String, shown: String) {
        let subvolume = Volume(
            id: 300, path: "snaps/x", mountedPath: path, uuid: "u", created: Date(timeIntervalSince1970: 0))
        let filesystem = Filesystem(
            uuid: "fs", devices: [], mounts: [FilesystemMount(mountpoint: "/mnt", subvolumePath: "/", subvolumeID: 5)])
        let outcome = DeletionOutcome(
            snapshot: PlannedSnapshot(subvolume: subvolume, filesystem: filesystem), result: .deleted)
        #expect(AuditTrail.lines(for: outcome) == ["carve: deleted snapshot \(shown) (id 300)"])
        let gone = DeletionOutcome(snapshot: outcome.snapshot, result: .alreadyGone)
        #expect(
            AuditTrail.lines(for: gone) == ["carve: snapshot \(shown) (id 300) was already gone: counted as deleted"])
        let refused = DeletionOutcome(snapshot: outcome.snapshot, result: .refused([.important]))
        #expect(
            AuditTrail.lines(for: refused) == [
                "carve: cannot delete snapshot \(shown) (id 300): \(Protection.important.reason)"
            ])
    }

    /// The metadata and failure lines quote paths too: each stays one line.
    @Test func metadataAndFailureLinesAreOneLineEach() {
        let path = "/mnt/.snapshots/new\nline"
        let subvolume = Volume(
            id: 300, path: "snaps/x", mountedPath: path + "/snapshot", uuid: "u",
            created: Date(timeIntervalSince1970: 0))
        let filesystem = Filesystem(
            uuid: "fs", devices: [], mounts: [FilesystemMount(mountpoint: "/mnt", subvolumePath: "/", subvolumeID: 5)])
        let snapshot = PlannedSnapshot(subvolume: subvolume, filesystem: filesystem)
        let removed = DeletionOutcome(
            snapshot: snapshot, result: .deleted, metadataRemoved: path,
            metadataWarning: "cannot remove \(path)/x: busy")
        #expect(
            AuditTrail.lines(for: removed) == [
                "carve: deleted snapshot /mnt/.snapshots/new\\x0aline/snapshot (id 300)",
                "carve: removed its plain metadata /mnt/.snapshots/new\\x0aline",
                "carve: warning: cannot remove /mnt/.snapshots/new\\x0aline/x: busy",
            ])
        let failed = DeletionOutcome(snapshot: snapshot, result: .failed(RuntimeError("cannot open \(path)")))
        #expect(AuditTrail.lines(for: failed).allSatisfy { !$0.contains("\n") })
        #expect(AuditTrail.lines(for: failed).first?.hasSuffix("cannot open /mnt/.snapshots/new\\x0aline") == true)
    }
}
