import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// Which files only a set of snapshots holds, on fake trees: @home (256) and its
/// snapshots 257… in creation order; sizes in KiB so the sums read easily. The fake
/// reader attributes every reference, as the btrfs reader does once it has read the
/// first holders' trees.
@Suite struct PinnedExtentsTests {
    typealias F = SnapshotFixtures
    static let kib: UInt64 = 1024
    static let filesystem = F.filesystem()

    static func extent(_ bytenr: UInt64, _ kib: UInt64) -> ExtentKey {
        ExtentKey(diskBytenr: bytenr << 20, diskBytes: kib * Self.kib)
    }

    /// `references`: (subvolume, inode, extent bytenr, KiB, path).
    static func pinned(
        _ set: [UInt64], _ references: [(UInt64, UInt64, UInt64, UInt64, String?)],
        subvolumes: [Volume] = Self.series(4)
    ) throws -> PinnedFiles {
        let files = references.map {
            FakeFileReference($0.0, inode: $0.1, extent: extent($0.2, $0.3), path: $0.4)
        }
        var stored = FakeSnapshotBackend.StoredFilesystem(filesystem: filesystem, subvolumes: subvolumes)
        stored.files = files
        stored.exact = FakeFileReference.exact(files, subvolumes: subvolumes.map(\.id))
        let backend = FakeSnapshotBackend([stored])
        return try backend.pinnedFiles(of: set, on: filesystem, exact: nil).naming(
            from: subvolumes, on: filesystem)
    }

    /// @home and `count` read-only snapshots of it, 257 oldest.
    static func series(_ count: Int) -> [Volume] {
        let home = F.subvolume(256, path: "home")
        return [home]
            + (0..<count).map { index in
                var snapshot = F.snapshot(
                    257 + UInt64(index), path: "snaps/s\(index + 1)", of: home, daysAgo: Double(count - index))
                snapshot.createdGeneration = snapshot.generation
                return snapshot
            }
    }

    @Test func aFileWrittenAndDeletedBetweenTwoSnapshotsIsOneRowOfItsBytes() throws {
        // f lives only in s2 (258); g is in every snapshot and @home: not pinned.
        let pinned = try Self.pinned(
            [258],
            [
                (258, 300, 1, 64, "f"),
                (256, 301, 2, 8, "g"), (257, 301, 2, 8, "g"), (258, 301, 2, 8, "g"), (259, 301, 2, 8, "g"),
            ])
        #expect(pinned.files.map(\.displayPath) == ["f"])
        #expect(pinned.files[0].bytes == 64 * Self.kib)
        #expect(pinned.files[0].first.label == "s2" && pinned.files[0].last.label == "s2")
        #expect(pinned.reclaim.data == 64 * Self.kib)
    }

    @Test func aFileRenamedBetweenSnapshotsIsOneRowUnderItsNewestName() throws {
        // Inode 300: "old" in s1 and s2, "new" in s3, its bytes gone from @home.
        let pinned = try Self.pinned(
            [257, 258, 259],
            [(257, 300, 1, 32, "old"), (258, 300, 1, 32, "old"), (259, 300, 1, 32, "new")])
        #expect(pinned.files.count == 1)
        #expect(pinned.files[0].path == "new")
        #expect(pinned.files[0].namedIn.label == "s3")
        #expect((pinned.files[0].first.label, pinned.files[0].last.label) == ("s1", "s3"))
    }

    @Test func aReflinkedCopyInsideTheSetCountsOnceForTheLowerInode() throws {
        // 301 is a reflinked copy of 300: one extent, counted for 300; 302 has its own.
        let pinned = try Self.pinned(
            [257],
            [(257, 300, 1, 128, "a"), (257, 301, 1, 128, "copy"), (257, 302, 2, 4, "b")])
        #expect(pinned.files.map(\.displayPath) == ["a", "b"])
        #expect(pinned.files.map(\.bytes) == [128 * Self.kib, 4 * Self.kib])
        #expect(pinned.files.reduce(0) { $0 + $1.bytes } == pinned.reclaim.data)
    }

    @Test func anExtentAnotherSubvolumeSharesIsNotPinned() throws {
        // s1's file was reflinked into @home: the copy keeps it.
        let pinned = try Self.pinned([257], [(257, 300, 1, 64, "f"), (256, 900, 1, 64, "kept")])
        #expect(pinned.files.isEmpty)
        #expect(pinned.reclaim.data == 0)
    }

    @Test func aFileRewrittenInPlaceSumsItsVersionsOnlyTheSetHolds() throws {
        // v1 in s1 only, v2 in s2 and s3, v3 in s4 and @home: the set s1-s3 frees v1 and v2.
        let pinned = try Self.pinned(
            [257, 258, 259],
            [
                (257, 300, 1, 10, "log"), (258, 300, 2, 20, "log"), (259, 300, 2, 20, "log"),
                (260, 300, 3, 40, "log"), (256, 300, 3, 40, "log"),
            ])
        #expect(pinned.files.count == 1)
        #expect(pinned.files[0].bytes == 30 * Self.kib)
        #expect(pinned.files[0].extents == 2)
        #expect((pinned.files[0].first.label, pinned.files[0].last.label) == ("s1", "s3"))
    }

    @Test func theSameInodeOfTwoSourcesIsTwoFiles() throws {
        let other = F.subvolume(400, path: "other")
        var copy = F.snapshot(401, path: "snaps/other1", of: other, daysAgo: 1)
        copy.createdGeneration = copy.generation
        let pinned = try Self.pinned(
            [257, 401], [(257, 300, 1, 8, "home-file"), (401, 300, 2, 16, "other-file")],
            subvolumes: Self.series(1) + [other, copy])
        #expect(pinned.files.map(\.displayPath) == ["other-file", "home-file"])
    }

    @Test func aFileWithoutANameIsShownByInodeAndStillCounted() throws {
        let pinned = try Self.pinned([257], [(257, 300, 1, 8, nil)])
        #expect(pinned.files.map(\.displayPath) == ["<inode 300 in /mnt/snaps/s1>"])
        #expect(pinned.reclaim.data == 8 * Self.kib)
    }

    /// Random trees: whatever the set, the rows add up to the map's own set reclaim.
    @Test func rowsAlwaysAddUpToTheSetReclaim() throws {
        var random = SplitMix(seed: 35)
        let subvolumes = Self.series(8)
        for _ in 0..<50 {
            var references: [(UInt64, UInt64, UInt64, UInt64, String?)] = []
            for bytenr in UInt64(1)...40 {
                // An extent held by a run of snapshots (and maybe @home), by one or two inodes.
                let start = UInt64.random(in: 256...264, using: &random)
                let end = UInt64.random(in: start...264, using: &random)
                let inode = UInt64.random(in: 300...310, using: &random)
                let kib = UInt64.random(in: 4...512, using: &random)
                for subvolume in start...end {
                    references.append((subvolume, inode, bytenr, kib, "f\(inode)"))
                    if bytenr % 5 == 0 { references.append((subvolume, inode + 100, bytenr, kib, "copy")) }
                }
            }
            let set = (257...264).filter { _ in Bool.random(using: &random) }.map(UInt64.init)
            let pinned = try Self.pinned(set, references, subvolumes: subvolumes)
            var map = ExtentMap(subvolumes: subvolumes.map(\.id))
            for reference in references {
                map.addReference(
                    subvolume: reference.0, diskBytenr: reference.2 << 20, diskBytes: reference.3 * Self.kib)
            }
            #expect(pinned.files.reduce(0) { $0 + $1.bytes } == map.reclaim(deleting: set), "set \(set)")
            #expect(pinned.unattributed == 0)
            #expect(Set(pinned.files.map(\.inode)).count == pinned.files.count, "one row per inode")
        }
    }

    @Test func theExtentsTellWhichTreesToReadAndWhatWasNotFound() throws {
        var map = ExtentMap(subvolumes: [256, 257, 258, 259])
        map.addReference(subvolume: 258, diskBytenr: 1 << 20, diskBytes: 4096)
        map.addReference(subvolume: 259, diskBytenr: 1 << 20, diskBytes: 4096)
        map.addReference(subvolume: 259, diskBytenr: 2 << 20, diskBytes: 8192)
        var extents = PinnedExtents(map: map, deleting: [258, 259])
        #expect(extents.bytes == 12288)
        #expect(extents.firstHolders == [258, 259])
        // Only the first holder's reference attributes an extent.
        let key = ExtentKey(diskBytenr: 1 << 20, diskBytes: 4096)
        #expect(extents.position(of: key, firstHeldBy: 259) == nil)
        let position = try #require(extents.position(of: key, firstHeldBy: 258))
        extents.attribute(position, to: 300)
        #expect(extents.unattributedTrees == [259])
        #expect(extents.unattributedBytes == 8192)
    }

    @Test func lineagesFollowParentUUIDsAsFarAsTheListingGoes() {
        let home = F.subvolume(256, path: "home")
        let snapshot = F.snapshot(257, path: "s1", of: home, daysAgo: 2)
        let ofSnapshot = F.snapshot(258, path: "s1-copy", of: snapshot, daysAgo: 1)
        let orphan = F.snapshot(259, path: "s0", of: nil, daysAgo: 3)
        let lineages = PinnedExtents.lineages(of: [home, snapshot, ofSnapshot, orphan])
        #expect(lineages[256] == home.uuid && lineages[257] == home.uuid && lineages[258] == home.uuid)
        #expect(lineages[259] == orphan.parentUUID)
    }

    @Test func searchBoundsStartAtTheSnapshotBeforeEachMember() {
        var series = Self.series(4)
        // s3 was made writable and written after it was taken: not a bound for s4.
        series[3].generation += 5
        let bounds = PinnedSearchBounds.bounds(for: [257, 258, 260, 256], in: series)
        #expect(bounds[257] == 0, "the oldest snapshot is read whole")
        #expect(bounds[258] == series[1].createdGeneration)
        #expect(bounds[260] == series[2].createdGeneration, "the changed s3 is passed over")
        #expect(bounds[256] == 0, "the source itself is read whole")
    }

    @Test func aSnapshotOfAReadOnlySnapshotStartsAtItsSourcesLastTransaction() {
        let series = Self.series(1)
        var received = F.snapshot(300, path: "backup/2", of: series[1], daysAgo: 0)
        received.createdGeneration = received.generation
        let bounds = PinnedSearchBounds.bounds(for: [300], in: series + [received])
        #expect(bounds[300] == series[1].generation)
    }

    @Test func fewExtentsBesideALargeTreeAreLookedUpManyAreRead() {
        // A 160 MiB tree of 16 KiB blocks: up to 10,240 extents are looked up one by one.
        let tree: UInt64 = 160 << 20
        #expect(PinnedSearchBounds.looksUpBackReferences(extents: 2_000, treeBytes: tree, nodeSize: 16384))
        #expect(PinnedSearchBounds.looksUpBackReferences(extents: 10_240, treeBytes: tree, nodeSize: 16384))
        #expect(!PinnedSearchBounds.looksUpBackReferences(extents: 10_241, treeBytes: tree, nodeSize: 16384))
        #expect(!PinnedSearchBounds.looksUpBackReferences(extents: 1, treeBytes: nil, nodeSize: 16384))
    }
}
