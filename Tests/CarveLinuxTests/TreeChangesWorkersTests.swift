import CarveCore
@testable import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// A changed tree read on several searches at once (`TreeChanges+Workers`) finds what one
/// search finds: the leaves written since the state and the inodes read again split
/// between three workers however small the tree (the listing shares them from 4,096
/// records), on a real loop btrfs whose files were rewritten, deleted, renamed, linked
/// and reflinked, and whose directories were removed, replaced and made.
@Suite(.serialized, .integration())
struct TreeChangesWorkersTests {
    @Test func aTreeReadOnThreeSearchesGivesTheChangesOneSearchGives() throws {
        let loop = try LoopDisk(size: "1G")
        defer { loop.cleanup() }
        try Shell.check(["mkfs.btrfs", "-q", "-f", loop.device])
        let mnt = try loop.mount(loop.device, options: nil, name: "mnt")
        func write(_ directory: String, _ prefix: String, _ count: Int, _ seed: Int) throws {
            try Shell.check([
                "python3", "-c", ExactDirectoryHintsTests.writer, "\(mnt)/data/\(directory)", prefix, "\(count)",
                "\(seed)",
            ])
        }
        func sh(_ script: String) throws { try Shell.check(["sh", "-euc", "cd '\(mnt)/data'; " + script]) }
        try Shell.check(["btrfs", "-q", "subvolume", "create", "\(mnt)/data"])
        for index in 0..<12 { try write("d\(index)", "file-", 60, index) }
        try write("big", "f", 700, 99)
        try Shell.check(["sync"])
        let directory = try FileDescriptor(directory: mnt + "/data")
        let nodeSize = try TreeSearch.nodeSize(directory)
        let backend = SnapshotBackendRegistry.classifying(BtrfsSnapshotBackend())
        let listing = try backend.subvolumes(of: try backend.filesystem(containing: mnt), sizes: .none)
        let data = try #require(listing.subvolumes.first { $0.path == "data" })
        let (tree, generation) = (data.id, data.generation)
        let whole = TreeReader.read(
            tree: tree, lineage: nil, with: TreeSearch(directory), hints: DirectoryHints(), nodeSize: nodeSize,
            keepsRecords: true)
        let records = try #require(whole.records)
        let state = WritableTreeState(readFrom: generation, readUntil: generation, records: records)
        try sh(
            """
            rm -r d3; rm d7/file-000*; head -c 5000 /dev/urandom > d3; mv d5 d5-renamed; rm big/f01*
            ln d0/file-0001 d1/hard; cp --reflink=always d0/file-0002 d7/copy; mkdir d12 d13
            for f in d2/file-00*; do head -c 7000 /dev/urandom > "$f"; done
            """)
        try write("d13", "n", 30, 13)
        try Shell.check(["sync"])
        let one = try TreeChanges(tree: tree, search: TreeSearch(directory), nodeSize: nodeSize)
            .read(base: state, threshold: generation + 1)
        let three = try TreeChanges(
            tree: tree, searches: (0..<3).map { _ in TreeSearch(directory) }, nodeSize: nodeSize, sharing: (1, 1)
        ).read(base: state, threshold: generation + 1)
        #expect(one.changes.count > 200, "\(one.changes.count) changes")
        #expect(!one.readWhole && !three.readWhole)
        #expect(three.changes.map(\.inode) == one.changes.map(\.inode))
        #expect(three.changes.map(\.record) == one.changes.map(\.record))
        #expect((three.reread, three.malformed, three.items) == (one.reread, one.malformed, one.items))
        // The changes make the records a whole read gives.
        func wholeRecords() throws -> InodeRecords {
            try #require(
                TreeReader.read(
                    tree: tree, lineage: nil, with: TreeSearch(directory), hints: DirectoryHints(),
                    nodeSize: nodeSize, keepsRecords: true
                ).records)
        }
        #expect(records.applying(three.changes) == (try wholeRecords()))

        // Relocation moves every file's extents and leaves their inode items as they were:
        // only the leaves tell, each object's items checked against the state's at the end
        // of whichever range a worker took it in. Small files kept in their leaves (a
        // tenth as many files moved as records, or the tree is read whole instead), and
        // files with extents made last, so that the last range ends on one moved.
        try Shell.check([
            "python3", "-c",
            """
            import os, sys
            os.makedirs(sys.argv[1] + "/small"); os.makedirs(sys.argv[1] + "/large")
            for i in range(15000): open("%s/small/s%05d" % (sys.argv[1], i), "wb").write(b"x" * 100)
            for i in range(200): open("%s/large/l%03d" % (sys.argv[1], i), "wb").write(os.urandom(8192))
            """, "\(mnt)/data",
        ])
        try Shell.check(["sync"])
        // The generation before the state's read, as a listing keeps it: anything the
        // read may have missed (a deleted inode's items go when the cleaner gets to it) is
        // then past it.
        let movedAt = try #require(
            try backend.subvolumes(of: try backend.filesystem(containing: mnt), sizes: .none).subvolumes
                .first { $0.path == "data" }
        ).generation
        let moved = try wholeRecords()
        try Shell.check(["btrfs", "balance", "start", "--full-balance", "-d", mnt])
        try Shell.check(["sync"])
        let relocated = try TreeChanges(
            tree: tree, searches: (0..<3).map { _ in TreeSearch(directory) }, nodeSize: nodeSize, sharing: (1, 1)
        ).read(
            base: WritableTreeState(readFrom: movedAt, readUntil: movedAt, records: moved), threshold: movedAt + 1)
        #expect(relocated.changes.count > 500 && !relocated.readWhole, "\(relocated.changes.count) changes")
        #expect(moved.applying(relocated.changes) == (try wholeRecords()))
    }
}
