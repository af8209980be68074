import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// Writable trees read only where they changed since the cache (`IncrementalPlan`,
/// `TreeChanges`) on a real loop btrfs: after each round of random changes (`FileChurn`,
/// fixed seeds) the sizes of every subvolume equal a full scan's, and those of the
/// snapshots `btrfs filesystem du -s`; and each case the cache cannot vouch for is read
/// whole, said under --verbose, with the sizes of a full scan.
@Suite(.serialized, .integration(needing: "fallocate"))
struct IncrementalExactSizesIntegrationTests {
    typealias Disk = ExactSizesIntegrationTests.Disk

    struct Run {
        var sizes: [String: [Int]]
        var stderr: String
    }

    /// `carve snapshots list MNT --all-subvolumes --sizes exact --json --bytes --verbose`.
    func list(_ disk: Disk, cache: String?) throws -> Run {
        let result = try Shell.run(
            [
                CarveBinary.path, "snapshots", "list", disk.mountpoint, "--all-subvolumes", "--sizes", "exact",
                "--json",
                "--bytes", "--verbose",
            ],
            environment: cache.map { ["CARVE_CACHE_DIR": $0] } ?? ["CARVE_CACHE": "off"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        var sizes: [String: [Int]] = [:]
        for subvolume in (json["snapshots"] as? [[String: Any]]) ?? [] {
            sizes[try #require(subvolume["path"] as? String)] = [
                try #require(subvolume["exclusive"] as? Int), try #require(subvolume["referenced"] as? Int),
            ]
        }
        return Run(sizes: sizes, stderr: result.stderr)
    }

    /// The cached run's sizes are a full scan's; with `du`, each snapshot's exclusive bytes are du's.
    func expectExact(_ disk: Disk, cache: String, du: Bool, _ what: String) throws -> Run {
        let cached = try list(disk, cache: cache)
        let full = try list(disk, cache: nil)
        #expect(cached.sizes == full.sizes, "\(what): with the cache \(cached.sizes), full scan \(full.sizes)")
        #expect(!cached.sizes.isEmpty, "\(what)")
        if du {
            // A commit wakes the cleaner, which otherwise waits up to 30 s to drop deleted snapshots.
            try Shell.check(["btrfs", "filesystem", "sync", disk.mountpoint])
            try Shell.check(["btrfs", "subvolume", "sync", disk.mountpoint])
            for (path, size) in cached.sizes where path.contains("/snaps/") {
                #expect(UInt64(size[0]) == (try disk.duExclusive(path)), "\(what): \(path)")
            }
        }
        return cached
    }

    /// Ten rounds of `FileChurn` from `seed`, each compared with a full scan and, without
    /// `partial`, with du; with `partial`, quotas are turned on at the end and each
    /// snapshot's qgroup exclusive bytes are its data plus whole tree blocks.
    func churned(seed: UInt64, partial: Bool) throws {
        let disk = try Disk(compress: false)
        defer { disk.loop.cleanup() }
        let cache = disk.loop.directory + "/cache"
        var churn = FileChurn(seed: seed, partial: partial)
        for round in 0..<10 {
            let lines = churn.round(round == 0 ? 60 : 25)
            try disk.sh(lines.joined(separator: "\n") + "\nsync")
            let run = try expectExact(disk, cache: cache, du: !partial, "seed \(seed) round \(round)")
            if round > 0 {
                // The writable trees known from the last run were read only where they changed.
                #expect(run.stderr.contains("only where they changed"), "seed \(seed) round \(round): \(run.stderr)")
                #expect(!run.stderr.contains("read whole"), "seed \(seed) round \(round): \(run.stderr)")
            }
        }
        if partial {
            // qgroups count a deleted snapshot's references until the cleaner has dropped
            // them; a commit wakes it.
            try Shell.check(["btrfs", "filesystem", "sync", disk.mountpoint])
            try Shell.check(["btrfs", "subvolume", "sync", disk.mountpoint])
            try ExactSizesIntegrationTests().expectMetadataWithinEstimate(
                try disk.exact(), qgroups: try disk.qgroupExclusive())
        }
    }

    @Test(arguments: [11, 12] as [UInt64])
    func afterRandomWholeFileChangesTheSizesAreAFullScansAndDus(seed: UInt64) throws {
        try churned(seed: seed, partial: false)
    }

    @Test(arguments: [21, 22] as [UInt64])
    func afterRandomPartialChangesTheSizesAreAFullScansAndWithinQgroups(seed: UInt64) throws {
        try churned(seed: seed, partial: true)
    }

    func withDisk(_ body: (Disk, String) throws -> Void) throws {
        let disk = try Disk(compress: false)
        defer { disk.loop.cleanup() }
        try disk.sh(
            "head -c 3M /dev/urandom > data/a; head -c 1M /dev/urandom > data/b; mkdir data/d; echo x > data/d/c")
        try disk.snapshot("s1")
        try disk.sh("head -c 2M /dev/urandom > data/e; rm data/b; sync")
        try body(disk, disk.loop.directory + "/cache")
    }

    @Test func aFileUnlinkedWhileOpenIsReadAgainUntilItIsGone() throws {
        try withDisk { disk, cache in
            _ = try expectExact(disk, cache: cache, du: true, "before")
            // Held open by a process of the test's own while its name goes.
            let holder = try Shell.check([
                "sh", "-c",
                "cd '\(disk.mountpoint)' && (exec 3<data/a; rm data/a; sync; sleep 600) >/dev/null 2>&1 & echo $!",
            ]).trimmingCharacters(in: .whitespacesAndNewlines)
            defer { _ = try? Shell.run(["kill", holder]) }
            usleep(300_000)
            try Shell.check(["sync"])
            _ = try expectExact(disk, cache: cache, du: false, "open and unlinked")
            try Shell.check(["kill", holder])
            usleep(300_000)
            try Shell.check(["sync"])
            try Shell.check(["btrfs", "filesystem", "sync", disk.mountpoint])
            let gone = try expectExact(disk, cache: cache, du: true, "closed")
            #expect(gone.stderr.contains("only where they changed"), "\(gone.stderr)")
        }
    }

    @Test func aTreeChangedInAnOpenTransactionIsReadWhole() throws {
        try withDisk { disk, cache in
            _ = try expectExact(disk, cache: cache, du: false, "before")
            // No commit for minutes: the change stays in the open transaction, unless another
            // process's sync (a test running beside this one) commits it first. The data
            // tree's generation tells which: only then is the round tried again.
            try Shell.check(["mount", "-o", "remount,commit=300", disk.mountpoint])
            var committedBetween: [String] = []
            for round in 1...5 {
                let before = try generation(of: disk.mountpoint + "/data")
                try disk.sh("truncate -s \(100 + round)K data/a; rm -f data/e; echo \(round) >> data/d/c")
                let open = try expectExact(disk, cache: cache, du: false, "open transaction, round \(round)")
                if open.stderr.contains("an open transaction is changing it") { return }
                let after = try generation(of: disk.mountpoint + "/data")
                #expect(after > before, "nothing committed the change, yet it was not read whole: \(open.stderr)")
                if after == before { return }
                committedBetween.append(open.stderr)
            }
            Issue.record("each of five rounds was committed by another sync before it was listed: \(committedBetween)")
        }
    }

    /// The subvolume's generation as `btrfs subvolume show` reads it: it moves at a commit.
    func generation(of path: String) throws -> UInt64 {
        let text = try Shell.check(["btrfs", "subvolume", "show", path])
        let line = try #require(text.split(separator: "\n").first { $0.contains("Generation:") }, "\(text)")
        return try #require(line.split(whereSeparator: \.isWhitespace).last.flatMap { UInt64($0) }, "\(line)")
    }

    @Test func aSubvolumeTakingTheIdOfACachedOneIsReadWhole() throws {
        try withDisk { disk, cache in
            try Shell.check(["btrfs", "subvolume", "create", disk.mountpoint + "/late"])
            try disk.sh("head -c 2M /dev/urandom > late/x; sync")
            let before = try expectExact(disk, cache: cache, du: false, "before")
            #expect(before.sizes[disk.mountpoint + "/late"] != nil)
            // The newest subvolume deleted and its id freed (a remount forgets the highest id
            // handed out), then another made in its place.
            try Shell.check(["btrfs", "subvolume", "delete", disk.mountpoint + "/late"])
            try Shell.check(["btrfs", "filesystem", "sync", disk.mountpoint])
            try Shell.check(["btrfs", "subvolume", "sync", disk.mountpoint])
            try disk.loop.unmount(disk.mountpoint)
            try disk.loop.mount(disk.loop.device, name: "mnt")
            try Shell.check(["btrfs", "subvolume", "create", disk.mountpoint + "/late"])
            try disk.sh("head -c 1M /dev/urandom > late/y; sync")
            let after = try expectExact(disk, cache: cache, du: false, "same id")
            #expect(after.stderr.contains("another subvolume took its id"), "\(after.stderr)")
            let again = try expectExact(disk, cache: cache, du: false, "after")
            #expect(!again.stderr.contains("read whole"), "\(again.stderr)")
        }
    }

    @Test func aGenerationThatWentBackIsReadWhole() throws {
        try withDisk { disk, cache in
            // The disk as it is now, kept aside; the cache then learns later generations.
            try disk.loop.unmount(disk.mountpoint)
            let older = disk.loop.directory + "/older.img"
            try Shell.check(["cp", "--sparse=always", disk.loop.image, older])
            try disk.loop.mount(disk.loop.device, name: "mnt")
            for round in 0..<3 { try disk.sh("head -c 500K /dev/urandom > data/g\(round); sync") }
            _ = try expectExact(disk, cache: cache, du: false, "newer")
            // The older image put back, as a restored backup of the disk would be.
            try disk.loop.unmount(disk.mountpoint)
            try Shell.check(["cp", "--sparse=always", older, disk.loop.image])
            try Shell.check(["blockdev", "--flushbufs", disk.loop.device])
            try disk.loop.mount(disk.loop.device, name: "mnt")
            let back = try expectExact(disk, cache: cache, du: true, "restored")
            #expect(back.stderr.contains("its generation went back"), "\(back.stderr)")
        }
    }

    @Test func aKeptStateWhoseRecordsWereForgedIsReadWhole() throws {
        try withDisk { disk, cache in
            _ = try expectExact(disk, cache: cache, du: false, "before")
            // A record's length made to run past the records, the checksum recomputed: the
            // file opens, and its records are refused when the run walks them.
            let file = try #require(try FileManager.default.contentsOfDirectory(atPath: cache).first)
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: cache + "/" + file)))
            let decoded = try ExactSizesCache(decoding: bytes)
            // `data`, the first subvolume made (256): the one the change below reads again.
            let records = try #require(decoded.trees.first { $0.id == 256 }?.state?.records.bytes)
            let at = try #require(
                (32..<(bytes.count - records.count)).first { bytes[$0..<($0 + records.count)].elementsEqual(records) })
            // The first record: its inode (one or two bytes), then its body's length.
            let lengthAt = at + (bytes[at] & 0x80 == 0 ? 1 : 2)
            bytes.replaceSubrange(lengthAt..<(lengthAt + 1), with: [0xFF, 0x7F])
            bytes.remove(at: lengthAt + 2)
            let checksum = ExactSizesCache.checksum(Array(bytes[32...]))
            for byte in 0..<8 { bytes[24 + byte] = UInt8(truncatingIfNeeded: checksum >> (8 * byte)) }
            try Data(bytes).write(to: URL(fileURLWithPath: cache + "/" + file))
            try disk.sh("head -c 1M /dev/urandom > data/after; sync")
            let forged = try expectExact(disk, cache: cache, du: false, "forged")
            #expect(forged.stderr.contains("is damaged: read whole"), "\(forged.stderr)")
        }
    }

    @Test func aNewWritableSubvolumeIsReadWholeThenWhereItChanged() throws {
        try withDisk { disk, cache in
            _ = try expectExact(disk, cache: cache, du: false, "before")
            try Shell.check(["btrfs", "subvolume", "create", disk.mountpoint + "/fresh"])
            try disk.sh("head -c 1M /dev/urandom > fresh/x; sync")
            let first = try expectExact(disk, cache: cache, du: false, "new subvolume")
            try disk.sh("head -c 1M /dev/urandom > fresh/y; sync")
            let second = try expectExact(disk, cache: cache, du: false, "changed again")
            // Three writable trees (the top level, data and other) before, four after.
            #expect(first.stderr.contains("3 of them only where they changed"), "\(first.stderr)")
            #expect(second.stderr.contains("4 of them only where they changed"), "\(second.stderr)")
        }
    }
}
