import CarveCore
@testable import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// The exact scan reads each snapshot around the directory entries of the inodes that
/// were directories in the previous tree of its lineage. These tests churn directories
/// between snapshots (deleted, replaced by files, grown past one leaf, new ones) and
/// require the map to be the one a full read of every item gives, and any hint, even
/// one naming plain files, to change nothing but the number of items read.
@Suite(.serialized, .integration())
struct ExactDirectoryHintsTests {
    /// Writes `count` files of 3-9 KiB (never inline) named `prefix`N into `directory`.
    static let writer = """
        import os, random, sys
        directory, prefix, count, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        rng = random.Random(seed)
        os.makedirs(directory, exist_ok=True)
        for n in range(count):
            with open(os.path.join(directory, "%s%04d" % (prefix, n)), "wb") as f:
                f.write(os.urandom(rng.randint(3, 9) * 1024))
        """

    func withChurnedDisk(_ body: (_ mountpoint: String, _ listing: VolumeListing) throws -> Void) throws {
        let loop = try LoopDisk(size: "1G")
        defer { loop.cleanup() }
        try Shell.check(["mkfs.btrfs", "-q", "-f", loop.device])
        let mnt = try loop.mount(loop.device, options: nil, name: "mnt")
        func write(_ directory: String, _ prefix: String, _ count: Int, _ seed: Int) throws {
            try Shell.check(["python3", "-c", Self.writer, "\(mnt)/data/\(directory)", prefix, "\(count)", "\(seed)"])
        }
        func sh(_ script: String) throws { try Shell.check(["sh", "-euc", "cd '\(mnt)/data'; " + script]) }
        func snapshot(_ name: String) throws {
            try Shell.check(["btrfs", "-q", "subvolume", "snapshot", "-r", "\(mnt)/data", "\(mnt)/snaps/\(name)"])
        }
        try Shell.check(["btrfs", "-q", "subvolume", "create", "\(mnt)/data"])
        try FileManager.default.createDirectory(atPath: mnt + "/snaps", withIntermediateDirectories: true)
        for index in 0..<12 { try write("d\(index)", "file-with-a-longer-name-", 40, index) }
        try write("big", "f", 700, 99) // entries over several leaves
        try snapshot("s1")
        try sh(
            "rm -r d3; rm -r d7; head -c 5000 /dev/urandom > d7; mv d5 d5-renamed; rm big/f01*; ln d0/file-with-a-longer-name-0001 d1/hard"
        )
        try write("d12", "n", 30, 12)
        try write("big", "g", 100, 100)
        try snapshot("s2")
        try sh("rm -r big; mkdir big; rm d7; mkdir d7; cp --reflink=always d0/file-with-a-longer-name-0002 d7/copy")
        try write("d1", "more", 50, 1)
        try snapshot("s3")
        let backend = SnapshotBackendRegistry.classifying(BtrfsSnapshotBackend())
        try Shell.check(["sync"])
        try body(mnt, try backend.subvolumes(of: try backend.filesystem(containing: mnt), sizes: .none))
    }

    func lineages(_ listing: VolumeListing) -> [UInt64: SubvolumeUUID] {
        Dictionary(uniqueKeysWithValues: listing.subvolumes.map { ($0.id, $0.parentUUID ?? $0.uuid) })
    }

    @Test func readingAroundDirectoriesGivesTheMapOfAFullRead() throws {
        try withChurnedDisk { mnt, listing in
            let ids = listing.subvolumes.map(\.id)
            #expect(ids.count == 4)
            let scanner = ExtentScanner(mountpoint: mnt, isRoot: true)
            let full = try scanner.scan(subvolumes: ids).exact
            let hinted = try scanner.scan(subvolumes: ids, lineages: lineages(listing)).exact
            #expect(hinted.map == full.map)
            #expect(hinted.scan.fileExtentItems == full.scan.fileExtentItems)
            // The trees read after the first of the lineage left out its directories' entries...
            #expect(hinted.scan.items < full.scan.items * 9 / 10, "items \(hinted.scan.items) of \(full.scan.items)")
            // ...and the size estimate, which counts them from the directories' sizes, stays close.
            for id in ids {
                let (estimate, read) = (Double(hinted.treeBytes[id] ?? 0), Double(full.treeBytes[id] ?? 0))
                #expect(abs(estimate - read) <= read / 5, "tree \(id): \(estimate) against \(read)")
            }
            // And the numbers are the reference tool's.
            for snapshot in listing.subvolumes where snapshot.isSnapshot {
                let path = try #require(snapshot.mountedPath)
                let lines = try Shell.check(["btrfs", "filesystem", "du", "-s", "--raw", path]).split(separator: "\n")
                let fields = try #require(lines.last).split(separator: " ", omittingEmptySubsequences: true)
                let du = try #require(UInt64(fields[1]))
                #expect(hinted.map.exclusiveBytes()[snapshot.id] == du, "\(path)")
            }
        }
    }

    @Test func aHintNamingPlainFilesChangesNoReference() throws {
        try withChurnedDisk { mnt, listing in
            let tree = try #require(listing.subvolumes.first { $0.path == "snaps/s2" }).id
            let directory = try FileDescriptor(directory: mnt)
            let nodeSize = try TreeSearch.nodeSize(directory)
            let plain = TreeReader.read(
                tree: tree, lineage: nil, with: TreeSearch(directory), hints: DirectoryHints(), nodeSize: nodeSize)
            // The reader stops a range when a call left room for any item; a search that
            // goes on until a call comes back empty finds no more file extent items.
            var fileExtents = 0
            try TreeSearch(directory).forEachItem(tree: tree) { if $0.type == BtrfsKey.fileExtent { fileExtents += 1 } }
            #expect(plain.fileExtents == fileExtents)
            // Every inode number up to past the last one a hint: files, directories, and none.
            func hints(entryLeafBytes: UInt64) -> DirectoryHints {
                let hints = DirectoryHints()
                hints.learn(
                    (250...3_000).map {
                        DirectoryHints.Directory(id: $0, leafBytesPerSizeByte: 1, entryLeafBytes: entryLeafBytes)
                    }, in: "all")
                return hints
            }
            let hinted = TreeReader.read(
                tree: tree, lineage: "all", with: TreeSearch(directory),
                hints: hints(entryLeafBytes: DirectoryHints.Directory.worthLeavingOut), nodeSize: nodeSize)
            #expect(plain.error == nil && hinted.error == nil)
            #expect(plain.references.count > 500)
            #expect(hinted.references == plain.references)
            #expect(hinted.fileExtents == plain.fileExtents)
            #expect(hinted.items < plain.items)
            // Directories whose entries took little room are read through: no search of their own.
            let small = TreeReader.read(
                tree: tree, lineage: "all", with: TreeSearch(directory),
                hints: hints(entryLeafBytes: DirectoryHints.Directory.worthLeavingOut - 1), nodeSize: nodeSize)
            #expect(small.references == plain.references)
            #expect(small.items == plain.items)
        }
    }

    /// A changed tree's read leaves a known directory's DIR_INDEX items out
    /// (`TreeChanges.readInode`): for every inode of each tree, as a directory or not
    /// (a hint may name a file), the record and the names are those of a read of every item.
    @Test func aDirectoryReadWithoutItsIndexItemsGivesTheRecordOfAFullRead() throws {
        try withChurnedDisk { mnt, listing in
            let directory = try FileDescriptor(directory: mnt)
            let nodeSize = try TreeSearch.nodeSize(directory)
            var directories = 0
            for tree in listing.subvolumes.map(\.id) {
                var inodes: [(inode: UInt64, isDirectory: Bool)] = []
                try TreeSearch(directory).forEachItem(tree: tree) { item in
                    guard item.type == BtrfsKey.inodeItem, item.data.count >= 56 else { return }
                    let mode = UInt32(littleEndian: item.data.loadUnaligned(fromByteOffset: 52, as: UInt32.self))
                    inodes.append((item.objectid, mode & 0o170000 == 0o040000))
                }
                let changes = TreeChanges(tree: tree, search: TreeSearch(directory), nodeSize: nodeSize)
                for (inode, isDirectory) in inodes {
                    var malformed = 0
                    let whole = try changes.readInode(inode, directory: false, malformed: &malformed)
                    let withoutIndex = try changes.readInode(inode, directory: true, malformed: &malformed)
                    #expect(withoutIndex.0 == whole.0, "tree \(tree) inode \(inode)")
                    #expect(withoutIndex.1 == whole.1, "tree \(tree) inode \(inode)")
                    #expect(malformed == 0)
                    if isDirectory, whole.1.count > 1 { directories += 1 }
                }
            }
            // The directories of each tree, the one with entries over several leaves among them.
            #expect(directories >= 40, "\(directories) directories with entries")
        }
    }
}
