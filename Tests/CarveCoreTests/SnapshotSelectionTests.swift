import CarveCore
import CarveTestSupport
import Foundation
import Testing

@Suite struct SnapshotSelectionTests {
    typealias F = SnapshotFixtures
    let home = F.subvolume(256, path: "@home")
    let root = F.subvolume(257, path: "@")
    var all: [Volume] {
        [
            home, root,
            F.snapshot(300, path: "snaps/home.1", of: home, daysAgo: 40),
            F.snapshot(301, path: "snaps/home.2", of: home, daysAgo: 20),
            F.snapshot(302, path: "snaps/home.3", of: home, daysAgo: 10),
            F.snapshot(303, path: "snaps/home.4", of: home, daysAgo: 1),
            F.snapshot(
                310, path: "@/.snapshots/1/snapshot", of: root, daysAgo: 50,
                metadata: ManagerMetadata(manager: .snapper, config: "root", number: 1, description: "weekly update")),
            F.snapshot(
                311, path: "@/.snapshots/2/snapshot", of: root, daysAgo: 35,
                metadata: ManagerMetadata(manager: .snapper, config: "root", number: 2, description: "before install")),
            F.snapshot(312, path: "orphan", of: nil, daysAgo: 90),
        ]
    }

    func ids(_ selection: SnapshotSelection) -> [UInt64] { selection.apply(to: all, now: F.epoch).map(\.id) }

    @Test func noCriteriaSelectsEverySnapshotAndNoPlainSubvolume() {
        #expect(ids(SnapshotSelection()) == [300, 301, 302, 303, 310, 311, 312])
        #expect(!SnapshotSelection(all: true, timeZone: .utc).hasCriteria)
    }

    @Test func olderThanBeforeAndAfterCompareCreationTimes() {
        #expect(ids(SnapshotSelection(olderThan: TimeSpan(days: 30))) == [300, 310, 311, 312])
        let before = F.epoch.addingTimeInterval(-15 * 86_400), after = F.epoch.addingTimeInterval(-45 * 86_400)
        #expect(ids(SnapshotSelection(before: before, after: after)) == [300, 301, 311])
    }

    @Test func keepLastLeavesOutTheNewestOfEachSource() {
        #expect(ids(SnapshotSelection(keepLast: 2)) == [300, 301])
        #expect(ids(SnapshotSelection(keepLast: 1)) == [300, 301, 302, 310])
        #expect(ids(SnapshotSelection(keepLast: 0)) == [300, 301, 302, 303, 310, 311, 312])
    }

    @Test func keepLastProtectsTheNewestWhateverTheirAge() {
        // The 3 newest of @home are 20, 10 and 1 days old: older-than 15d must not take the 20-day one.
        let selection = SnapshotSelection(olderThan: TimeSpan(days: 15), keepLast: 3)
        #expect(ids(selection) == [300])
    }

    @Test func keepLastCountsWithinTheChosenManager() {
        #expect(ids(SnapshotSelection(managers: [.snapper], keepLast: 1)) == [310])
    }

    @Test func sourceByTopLevelPathMountedPathOrId() {
        #expect(ids(SnapshotSelection(sources: ["@home"])) == [300, 301, 302, 303])
        #expect(ids(SnapshotSelection(sources: ["/@home/"])) == [300, 301, 302, 303])
        #expect(ids(SnapshotSelection(sources: ["/mnt/@"])) == [310, 311])
        #expect(ids(SnapshotSelection(sources: ["257"])) == [310, 311])
        #expect(ids(SnapshotSelection(sources: ["/nowhere"])) == [])
    }

    @Test func matchLooksAtPathNameAndDescription() throws {
        #expect(ids(SnapshotSelection(match: try Glob("home.[12]"))) == [300, 301])
        #expect(ids(SnapshotSelection(match: try Glob("*weekly*"))) == [310])
        #expect(ids(SnapshotSelection(match: try Glob("/mnt/@/.snapshots/*"))) == [310, 311])
    }

    @Test func managersNarrow() {
        #expect(ids(SnapshotSelection(managers: [.plain])) == [300, 301, 302, 303, 312])
        #expect(ids(SnapshotSelection(managers: [.timeshift])) == [])
    }
}
