import CarveCore
import Foundation
import Testing
@testable import CarveLinux
import CarveTestSupport

/// A metadata directory is removed under carve's retired name, so that a kill before
/// the last rmdir leaves a name only carve uses, which the next run's sweep finishes.
@Suite struct ManagerMetadataRemovalTests {
    let marker = interruptedDeletionMarkerName

    func names(in path: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    @Test func removesTheDirectoryAndLeavesOtherRetiredNamesToTheSweep() throws {
        let root = try Integration.makeTree([
            ".snapshots/7/info.xml": "<snapshot/>", ".snapshots/7/\(marker)": "",
            ".snapshots/8/info.xml": "<snapshot/>", ".snapshots/.carve-deleted-5/\(marker)": "",
        ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(try ManagerMetadataRemoval.remove(root + "/.snapshots/7") == root + "/.snapshots/7")
        #expect(try names(in: root + "/.snapshots") == [".carve-deleted-5", "8"])
    }

    @Test func aTakenRetiredNameLeavesTheDirectoryToGoWhereItIs() throws {
        let root = try Integration.makeTree([
            ".snapshots/3/info.xml": "<snapshot/>", ".snapshots/.carve-deleted-3/other": "",
        ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(try ManagerMetadataRemoval.remove(root + "/.snapshots/3") != nil)
        #expect(try names(in: root + "/.snapshots") == [".carve-deleted-3"])
    }

    @Test func theSweepFinishesARetiredDirectoryOnlyWhileItHoldsNoMoreThanTheMarker() throws {
        let root = try Integration.makeTree([
            ".carve-deleted-5/\(marker)": "", ".carve-deleted-6/someone-elses": "",
        ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/.carve-deleted-4", withIntermediateDirectories: false)
        #expect(try ManagerMetadataRemoval.finishRetired(root + "/.carve-deleted-4"))
        #expect(try ManagerMetadataRemoval.finishRetired(root + "/.carve-deleted-5"))
        #expect(throws: RuntimeError.self) { try ManagerMetadataRemoval.finishRetired(root + "/.carve-deleted-6") }
        #expect(try names(in: root) == [".carve-deleted-6"])
        #expect(ManagerMetadataRemoval.retiredOriginal(".carve-deleted-12") == "12")
        #expect(ManagerMetadataRemoval.retiredOriginal("12") == nil)
    }
}
