import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// The send/receive chains: which snapshot on each side the next incremental send needs.
struct BackupChainsTests {
    typealias F = SnapshotFixtures

    let source = F.filesystem(uuid: "aaaaaaaa-0000-4000-8000-000000000001", mountpoint: "/src")
    let target = F.filesystem(uuid: "bbbbbbbb-0000-4000-8000-000000000002", mountpoint: "/backup")

    /// A backup of `sent` on the target: incremental (a snapshot of `previous`) or full.
    func received(_ id: UInt64, _ path: String, of sent: Volume, after previous: Volume?, daysAgo: Double) -> Volume {
        var volume = F.snapshot(id, path: path, of: previous, daysAgo: daysAgo, mountedAt: "/backup")
        volume.parentUUID = previous?.uuid
        volume.sourceID = nil; volume.sourcePath = nil
        volume.receivedUUID = sent.uuid
        return volume
    }

    func linked(_ sourceVolumes: [Volume], _ targetVolumes: [Volume]) -> [VolumeListing] {
        var listings = [
            VolumeListing(filesystem: source, subvolumes: sourceVolumes, sizes: .none),
            VolumeListing(filesystem: target, subvolumes: targetVolumes, sizes: .none),
        ]
        BackupChains.link(&listings)
        return listings
    }

    func chainParents(_ listing: VolumeListing) -> [String] {
        listing.subvolumes.filter { $0.chainParent != nil }.map(\.path).sorted()
    }

    @Test func theNewestSentSnapshotAndItsCopyAreTheChainsEnds() {
        let data = F.subvolume(256, path: "data", mountedAt: "/src")
        let s1 = F.snapshot(257, path: "snaps/data.1", of: data, daysAgo: 3, mountedAt: "/src")
        let s2 = F.snapshot(258, path: "snaps/data.2", of: data, daysAgo: 2, mountedAt: "/src")
        let s3 = F.snapshot(259, path: "snaps/data.3", of: data, daysAgo: 1, mountedAt: "/src") // not sent yet
        let r1 = received(300, "data.1", of: s1, after: nil, daysAgo: 3)
        let r2 = received(301, "data.2", of: s2, after: r1, daysAgo: 2)
        let listings = linked([data, s1, s2, s3], [r1, r2])
        #expect(chainParents(listings[0]) == ["snaps/data.2"])
        #expect(chainParents(listings[1]) == ["data.2"])
        let sent = listings[0].subvolumes.first { $0.id == 258 }!
        #expect(sent.chainParent == "parent of the incremental backup at /backup/data.2")
        let copy = listings[1].subvolumes.first { $0.id == 301 }!
        #expect(
            copy.chainParent
                == "newest backup received from /src/snaps/data.2: the parent of the next incremental backup")
        #expect(copy.receivedSourcePath == "/src/snaps/data.2")
    }

    @Test func eachSourceKeepsItsOwnChain() {
        let data = F.subvolume(256, path: "data", mountedAt: "/src")
        let home = F.subvolume(257, path: "home", mountedAt: "/src")
        let d1 = F.snapshot(260, path: "snaps/data.1", of: data, daysAgo: 2, mountedAt: "/src")
        let d2 = F.snapshot(261, path: "snaps/data.2", of: data, daysAgo: 1, mountedAt: "/src")
        let h1 = F.snapshot(262, path: "snaps/home.1", of: home, daysAgo: 5, mountedAt: "/src")
        let rd1 = received(300, "data.1", of: d1, after: nil, daysAgo: 2)
        let rd2 = received(301, "data.2", of: d2, after: rd1, daysAgo: 1)
        let rh1 = received(302, "home.1", of: h1, after: nil, daysAgo: 5)
        let listings = linked([data, home, d1, d2, h1], [rd1, rd2, rh1])
        #expect(chainParents(listings[0]) == ["snaps/data.2", "snaps/home.1"])
        #expect(chainParents(listings[1]) == ["data.2", "home.1"])
    }

    /// With the source not mounted, backups group by the chain of incremental receives.
    @Test func withTheSourceUnmountedEachChainOfReceivesKeepsItsNewest() {
        let data = F.subvolume(256, path: "data", mountedAt: "/src")
        let gone1 = F.snapshot(900, path: "x", of: data, daysAgo: 9)
        let gone2 = F.snapshot(901, path: "y", of: data, daysAgo: 8)
        let gone3 = F.snapshot(902, path: "z", of: data, daysAgo: 7)
        let r1 = received(300, "a.1", of: gone1, after: nil, daysAgo: 9)
        let r2 = received(301, "a.2", of: gone2, after: r1, daysAgo: 8)
        let full = received(302, "b.1", of: gone3, after: nil, daysAgo: 7)
        var listings = [VolumeListing(filesystem: target, subvolumes: [r1, r2, full], sizes: .none)]
        BackupChains.link(&listings)
        #expect(chainParents(listings[0]) == ["a.2", "b.1"])
        #expect(listings[0].subvolumes.allSatisfy { $0.receivedSourcePath == nil })
    }

    /// btrbk names a source's backups `NAME.TIMESTAMP`: a full resend does not start a second group.
    @Test func btrbkBackupsGroupByName() {
        let data = F.subvolume(256, path: "data", mountedAt: "/src")
        let gone1 = F.snapshot(900, path: "x", of: data, daysAgo: 9)
        let gone2 = F.snapshot(901, path: "y", of: data, daysAgo: 8)
        var r1 = received(300, "b/data.20261020", of: gone1, after: nil, daysAgo: 9)
        var r2 = received(301, "b/data.20261021", of: gone2, after: nil, daysAgo: 8)
        r1.metadata = ManagerMetadata(manager: .btrbk, name: "data.20261020")
        r2.metadata = ManagerMetadata(manager: .btrbk, name: "data.20261021")
        var listings = [VolumeListing(filesystem: target, subvolumes: [r1, r2], sizes: .none)]
        BackupChains.link(&listings)
        #expect(chainParents(listings[0]) == ["b/data.20261021"])
    }

    @Test func aChainsEndIsProtectedUnlessChainsMayBreak() {
        var snapshot = F.snapshot(258, path: "snaps/data.2", of: nil, daysAgo: 1)
        snapshot.chainParent = "parent of the incremental backup at /backup/data.2"
        #expect(
            DeletionRules().protections(of: snapshot)
                == [.chainParent("parent of the incremental backup at /backup/data.2")])
        #expect(
            Protection.chainParent("parent of the incremental backup at /backup/data.2").reason
                == "parent of the incremental backup at /backup/data.2 (use --break-chains)")
        #expect(DeletionRules(breakChains: true).protections(of: snapshot).isEmpty)
    }

    /// A received backup's parent UUID is the previous backup: it is not its source.
    @Test func theClassifierDoesNotCallThePreviousBackupTheSource() {
        let r1 = Volume(id: 300, path: "data.1", uuid: F.uuid(300), receivedUUID: F.uuid(1), created: F.epoch)
        let r2 = Volume(
            id: 301, path: "data.2", uuid: F.uuid(301), parentUUID: F.uuid(300), receivedUUID: F.uuid(2),
            created: F.epoch)
        let classified = SnapshotClassifier(timeZone: .utc, readFile: { _, _ in nil }).classify([r1, r2]).subvolumes
        #expect(classified[1].sourceID == nil && classified[1].sourcePath == nil)
    }

    /// Planning looks at every mounted filesystem for copies, with a warning for one it cannot list.
    @Test func planningFindsCopiesOnOtherMountedFilesystems() throws {
        let data = F.subvolume(256, path: "data", mountedAt: "/src")
        let s1 = F.snapshot(257, path: "snaps/data.1", of: data, daysAgo: 3, mountedAt: "/src")
        let s2 = F.snapshot(258, path: "snaps/data.2", of: data, daysAgo: 2, mountedAt: "/src")
        let r2 = received(301, "data.2", of: s2, after: nil, daysAgo: 2)
        let backend = FakeSnapshotBackend([
            .init(filesystem: source, subvolumes: [data, s1, s2]),
            .init(filesystem: target, subvolumes: [r2]),
        ])
        let request = try DeleteRequest(
            names: [], ids: [], filesystems: ["/src"], selection: SnapshotSelection(all: true, timeZone: .utc))
        let plan = try request.plan(backend: backend, rules: DeletionRules(), now: F.epoch)
        #expect(plan.toDelete.map(\.subvolume.path) == ["snaps/data.1"])
        #expect(
            plan.protected.map(\.reason) == ["parent of the incremental backup at /backup/data.2 (use --break-chains)"])
        let broken = try request.plan(backend: backend, rules: DeletionRules(breakChains: true), now: F.epoch)
        #expect(broken.toDelete.map(\.subvolume.path) == ["snaps/data.1", "snaps/data.2"])
    }
}
