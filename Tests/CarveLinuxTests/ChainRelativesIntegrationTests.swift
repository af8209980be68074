import CarveCore
@testable import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// Backup-chain protection asks each other mounted btrfs's UUID tree about the listed
/// snapshots instead of listing all of it: on btrbk's real backups, the lookup finds
/// exactly the copies and sources a full listing shows, and nothing else.
@Suite(.serialized, .integration(needing: "btrbk", "faketime"))
struct ChainRelativesIntegrationTests {
    @Test func theUUIDTreeFindsTheCopiesAndSourcesAndNothingElse() throws {
        let backups = try BtrbkBackups()
        defer { backups.cleanup() }
        for day in 1...3 { _ = try backups.backUp(day: day) }
        // Unrelated subvolumes on the target: not relatives.
        try Shell.check([
            "btrfs", "subvolume", "snapshot", "-r", backups.target.mountpoint + "/data",
            backups.target.mountpoint + "/unrelated",
        ])
        let backend = BtrfsSnapshotBackend()
        let source = try backend.filesystem(containing: backups.source.mountpoint)
        let target = try backend.filesystem(containing: backups.target.mountpoint)
        let sourceListing = try backend.subvolumes(of: source, sizes: .none)
        let targetListing = try backend.subvolumes(of: target, sizes: .none)

        let sent = Set(sourceListing.subvolumes.filter(\.isSnapshot).map(\.uuid))
        let copies = try backend.chainRelatives(on: target, receivedFrom: sent, withUUIDs: [])
        let expected = targetListing.subvolumes.filter { $0.receivedUUID.map(sent.contains) == true }
        #expect(copies.subvolumes.count == 3)
        #expect(copies.subvolumes.map(\.path) == expected.map(\.path))
        #expect(copies.subvolumes.map(\.mountedPath) == expected.map(\.mountedPath))
        #expect(copies.subvolumes.map(\.receivedUUID) == expected.map(\.receivedUUID))

        let received = Set(targetListing.subvolumes.compactMap(\.receivedUUID))
        let origins = try backend.chainRelatives(on: source, receivedFrom: [], withUUIDs: received)
        #expect(Set(origins.subvolumes.map(\.uuid)) == received)
        #expect(origins.subvolumes.allSatisfy { $0.parentUUID != nil && $0.path.hasPrefix("snaps/") })

        #expect(try backend.chainRelatives(on: target, receivedFrom: ["not-a-uuid"], withUUIDs: []).subvolumes.isEmpty)

        // Read in key order (a call holds the whole tree) or key by key (a call holds one
        // item, so the reading soon stops and the keys left are searched one by one): the
        // same ids, the copies a full listing shows.
        let keys = Set(sent.compactMap { UUIDTree.searchKey($0, type: UUIDTree.receivedSubvolume) })
        let directory = try FileDescriptor(directory: backups.target.mountpoint)
        let whole = try UUIDTree.ids(under: keys, with: TreeSearch(directory))
        let oneByOne = try UUIDTree.ids(under: keys, with: TreeSearch(directory, bufferSize: 48))
        #expect(whole == Set(expected.map(\.id)))
        #expect(oneByOne == whole)
    }
}
