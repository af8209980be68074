import CarveCore
@testable import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// Backup-chain protection asks each other mounted btrfs's UUID tree about the listed
/// snapshots instead of listing all of it: on btrbk's real backups, the lookup finds
/// exactly the copies and sources `btrfs subvolume list` shows, and nothing else.
@Suite(.serialized, .integration(needing: "btrbk", "faketime"))
struct ChainRelativesIntegrationTests {
    /// One line of `btrfs subvolume list -u -q -R`: the reference for ids, paths and UUIDs.
    struct Listed: CustomStringConvertible {
        var id: UInt64
        var path: String
        var uuid: String
        var parent: String?
        var received: String?
        var description: String { "\(id) \(path) \(uuid) parent \(parent ?? "-") received \(received ?? "-")" }
    }

    /// `btrfs subvolume list -u -q -R MOUNTPOINT`, in its order (by id).
    static func btrfsList(_ mountpoint: String) throws -> [Listed] {
        try Shell.check(["btrfs", "subvolume", "list", "-u", "-q", "-R", mountpoint]).split(separator: "\n").map {
            line in
            let fields = line.split(separator: " ").map(String.init)
            func field(_ name: String) throws -> String? {
                let value = try #require(fields.firstIndex(of: name).map { fields[$0 + 1] }, "\(name) in \(line)")
                return value == "-" ? nil : value
            }
            return Listed(
                id: try #require(UInt64(try field("ID") ?? "")),
                path: try #require(line.range(of: " path ").map { String(line[$0.upperBound...]) }),
                uuid: try #require(try field("uuid")), parent: try field("parent_uuid"),
                received: try field("received_uuid"))
        }
    }

    @Test func theUUIDTreeFindsTheCopiesAndSourcesAndNothingElse() throws {
        let backups = try BtrbkBackups()
        defer { backups.cleanup() }
        for day in 1...3 { _ = try backups.backUp(day: day) }
        // Unrelated subvolumes on the target: not relatives.
        try Shell.check([
            "btrfs", "subvolume", "snapshot", "-r", backups.target.mountpoint + "/data",
            backups.target.mountpoint + "/unrelated",
        ])
        // The reference: btrfs-progs' listing of each disk, and btrbk's names for the copies.
        let sourceList = try Self.btrfsList(backups.source.mountpoint)
        let targetList = try Self.btrfsList(backups.target.mountpoint)
        let backend = BtrfsSnapshotBackend()
        let source = try backend.filesystem(containing: backups.source.mountpoint)
        let target = try backend.filesystem(containing: backups.target.mountpoint)

        let sent = Set(sourceList.filter { $0.parent != nil }.map { SubvolumeUUID($0.uuid) })
        #expect(sent.count == 3, "btrbk made 3 snapshots: \(sourceList)")
        let copies = try backend.chainRelatives(on: target, receivedFrom: Array(sent), withUUIDs: [])
        let expected = targetList.filter { $0.received.map { sent.contains(SubvolumeUUID($0)) } == true }
        #expect(
            expected.map(\.path) == (1...3).map { "backup/data.2026110\($0)T1200" },
            "btrbk's copies, as btrfs lists them: \(targetList)")
        #expect(copies.subvolumes.map(\.path).sorted() == expected.map(\.path))
        #expect(
            copies.subvolumes.map { $0.mountedPath ?? "-" }.sorted()
                == expected.map { backups.target.mountpoint + "/" + $0.path })
        #expect(Set(copies.subvolumes.map(\.id)) == Set(expected.map(\.id)))
        #expect(
            Set(copies.subvolumes.compactMap(\.receivedUUID))
                == Set(expected.compactMap { $0.received.map { SubvolumeUUID($0) } }))

        let received = Set(targetList.compactMap { $0.received.map { SubvolumeUUID($0) } })
        #expect(received == sent, "every copy came from a snapshot of the source")
        let origins = try backend.chainRelatives(
            on: source, receivedFrom: [], withUUIDs: Array(received) + Array(received))
        #expect(
            origins.subvolumes.map(\.path).sorted()
                == sourceList.filter { received.contains(SubvolumeUUID($0.uuid)) }.map(\.path).sorted())
        #expect(Set(origins.subvolumes.map(\.uuid)) == received)
        #expect(origins.subvolumes.allSatisfy { $0.parentUUID != nil && $0.path.hasPrefix("snaps/") })

        #expect(try backend.chainRelatives(on: target, receivedFrom: ["not-a-uuid"], withUUIDs: []).subvolumes.isEmpty)

        // Read in key order (a call holds the whole tree) or key by key (a call holds one
        // item, so the reading soon stops and the keys left are searched one by one): the
        // same ids, the copies a full listing shows.
        let keys = ChainKeys().keys(receivedFrom: Array(sent) + Array(sent), withUUIDs: [])
        #expect(keys.count == sent.count && keys == keys.sorted())
        let directory = try FileDescriptor(directory: backups.target.mountpoint)
        let whole = try UUIDTree.ids(under: keys, with: TreeSearch(directory))
        let oneByOne = try UUIDTree.ids(under: keys, with: TreeSearch(directory, bufferSize: 48))
        #expect(whole == Set(expected.map(\.id)))
        #expect(oneByOne == whole)
    }
}
