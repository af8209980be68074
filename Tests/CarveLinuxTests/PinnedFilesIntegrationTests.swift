import CarveTestSupport
import Foundation
import Testing

/// `carve snapshots pinned` on a real loop btrfs mounted with compression, against
/// what the fixture wrote between its snapshots (every expected size comes from how
/// the files were made: random data does not compress, so its bytes on disk are its
/// length; the one compressed file's come from `btrfs inspect-internal dump-tree`),
/// against `btrfs filesystem du -s` for one snapshot, and against the data the
/// filesystem gives back when the set is deleted.
@Suite(.serialized, .integration())
struct PinnedFilesIntegrationTests {
    static let mib = 1 << 20

    /// `data` (the source), `other` (a plain subvolume) and `snaps/`, compress=zstd:
    /// the exact sizes tests' disk, with what these tests ask of it (below).
    typealias Disk = ExactSizesIntegrationTests.Disk

    func withDisk(_ body: (Disk) throws -> Void) throws {
        let disk = try Disk(compress: true)
        defer { disk.loop.cleanup() }
        try body(disk)
    }
    /// `count` files of 4K of random data in `directory`, in one process.
    static func smallFiles(_ count: Int, in directory: String) -> String {
        "python3 -c 'import os; os.makedirs(\"\(directory)\", exist_ok=True); "
            + "[open(\"\(directory)/f%d\" % i, \"wb\").write(os.urandom(4096)) for i in range(\(count))]'"
    }

    /// Three snapshots of `data` with known files between them (sizes in MiB, random
    /// unless said): see each test for what only which snapshots hold. 3,000 small files
    /// every snapshot shares make the trees large beside what each snapshot holds first,
    /// so its files are looked up by their back references.
    func build(_ disk: Disk) throws {
        let random = "head -c $2M /dev/urandom > data/$1"
        try disk.sh(Self.smallFiles(3000, in: "data/many"))
        try disk.sh(
            "w() { \(random); }; w keep 1; w S 2; w R 2; w N-old 1; w H 1; ln data/H data/H2; "
                + "yes carve | head -c 6M > data/T; "
                // One 4M extent, written at once past the page cache (compression leaves direct writes alone).
                + "dd if=/dev/urandom of=data/book bs=4M count=1 oflag=direct status=none")
        try disk.snapshot("s1")
        try disk.sh(
            "w() { \(random); }; dd if=/dev/urandom of=data/R bs=1M count=2 conv=notrunc status=none; w W 3; "
                // The middle of book again: its 4M extent stays whole, held by data as two bookends.
                + "dd if=/dev/urandom of=data/book bs=1M count=1 seek=1 conv=notrunc oflag=direct status=none; "
                + "mv data/N-old data/N-new; w A 1; cp --reflink=always data/A data/Acopy; "
                + "w K 1; cp --reflink=always data/K other/K")
        try disk.snapshot("s2")
        try disk.sh(
            "rm data/W data/S data/A data/Acopy data/K data/N-new data/H data/H2 data/T; "
                + "dd if=/dev/urandom of=data/R bs=1M count=2 conv=notrunc status=none; "
                + "dd if=/dev/urandom of=data/book bs=1M count=1 seek=1 conv=notrunc oflag=direct status=none")
        try disk.snapshot("s3")
    }

    @Test func oneSnapshotsFilesHaveTheBytesTheFixtureWroteAndMatchDuWhereItsDefinitionDoes() throws {
        try withDisk { disk in
            try build(disk)
            let mib = Self.mib
            // s2 alone: W (written after s1, deleted before s3), R's second version, the
            // 1M middle of book written after s1, and A with its reflinked copy, once.
            let (files, reclaim, stderr) = try disk.pinned(["s2"])
            // A few extents in a tree of thousands of files: looked up, every one found.
            #expect(stderr.contains("extents by their back references, searched 0 trees"), "\(stderr)")
            #expect(!stderr.contains("again whole"), "\(stderr)")
            #expect(Set(files.keys) == ["W", "R", "book", "A"], "\(files.keys.sorted())")
            #expect(files["W"]?["bytes"] as? Int == 3 * mib)
            #expect(files["R"]?["bytes"] as? Int == 2 * mib)
            #expect(files["book"]?["bytes"] as? Int == mib)
            #expect(files["A"]?["bytes"] as? Int == mib)
            #expect(reclaim == 7 * mib)
            // du agrees file by file, and on the total but for the extent A and its copy share,
            // which du counts in neither or in both (as the tree's leaves fall), carve once.
            let s2 = disk.path("s2")
            let du = try disk.duExclusives(["W", "R", "book", "A", "Acopy"].map { s2 + "/" + $0 })
            for name in ["W", "R", "book"] {
                #expect(du[s2 + "/" + name] == files[name]?["bytes"] as? Int, "\(name): du \(du)")
            }
            let copies = (du[s2 + "/A"] ?? -1) + (du[s2 + "/Acopy"] ?? -1)
            #expect(copies == 0 || copies == 2 * mib, "du \(du)")
            let total = try Shell.check(["btrfs", "filesystem", "du", "-s", "--raw", s2]).split(separator: "\n")
            let last = try #require(total.last)
            let exclusive = try #require(Int(last.split(separator: " ")[1]))
            #expect(exclusive - copies == reclaim - mib, "du -s \(total)")
        }
    }

    @Test func aSetsFilesAddUpToWhatDeletingItFrees() throws {
        try withDisk { disk in
            try build(disk)
            // After s3, the rest of book is rewritten: its first 4M extent is then held by
            // the snapshots only (s1 whole, s2 and s3 as bookends).
            try disk.sh(
                "dd if=/dev/urandom of=data/book bs=1M count=1 conv=notrunc oflag=direct status=none; "
                    + "dd if=/dev/urandom of=data/book bs=1M count=2 seek=2 conv=notrunc oflag=direct status=none")
            let mib = Self.mib
            let t = try disk.dumpTreeDiskBytes(
                inode: try inode(disk.path("s1") + "/T"), subvolume: disk.path("s1"))
            #expect(t > 0 && t < 6 * mib, "T is compressed on disk: \(t)")
            let (files, reclaim, stderr) = try disk.pinned(["s1", "s2", "s3"])
            #expect(stderr.contains("extents by their back references, searched 0 trees"), "\(stderr)")
            #expect(!stderr.contains("again whole"), "\(stderr)")
            let expected: [String: Int] = [
                "W": 3 * mib, "S": 2 * mib, "R": 4 * mib, "N-new": mib, "H": mib, "A": mib, "T": t,
                // The 4M extent written first and the middle written after s1.
                "book": 5 * mib,
            ]
            #expect(Set(files.keys) == Set(expected.keys), "\(files.keys.sorted())")
            for (name, bytes) in expected { #expect(files[name]?["bytes"] as? Int == bytes, "\(name)") }
            #expect(files["H"]?["links"] as? Int == 2)
            #expect(files["N-new"]?["first"] as? String == disk.path("s1"))
            #expect(files["N-new"]?["last"] as? String == disk.path("s2"))
            #expect(files["R"]?["extents"] as? Int ?? 0 >= 2, "two versions")
            #expect(reclaim == expected.values.reduce(0, +))
            // Quotas on: the same answer.
            try Shell.check(["btrfs", "quota", "enable", disk.mountpoint])
            try Shell.check(["btrfs", "quota", "rescan", "-w", disk.mountpoint])
            let (withQuotas, reclaimWithQuotas, _) = try disk.pinned(["s1", "s2", "s3"])
            #expect(reclaimWithQuotas == reclaim)
            #expect(withQuotas.mapValues { $0["bytes"] as? Int } == files.mapValues { $0["bytes"] as? Int })
            try Shell.check(["btrfs", "quota", "disable", disk.mountpoint])

            // What deleting the set frees: the data used drops by exactly the rows' sum, the
            // metadata by no more than the tree blocks and checksums the last line gives.
            let estimate = try JSONSerialization.jsonObject(
                with: Data(
                    try disk.carve(["snapshots", "pinned", "--json"] + ["s1", "s2", "s3"].map(disk.path)).stdout.utf8))
            let numbers = try #require((estimate as? [String: Any])?["filesystems"] as? [[String: Any]]).first
            let most =
                (numbers?["metadata_estimate_max"] as? Int ?? 0) + (numbers?["checksum_bytes_at_most"] as? Int ?? 0)
            try Shell.check(["btrfs", "filesystem", "sync", disk.mountpoint])
            let before = try disk.used()
            try Shell.check(["btrfs", "subvolume", "delete", "-c"] + ["s1", "s2", "s3"].map(disk.path))
            try Shell.check(["btrfs", "filesystem", "sync", disk.mountpoint])
            try Shell.check(["btrfs", "subvolume", "sync", disk.mountpoint])
            try Shell.check(["btrfs", "filesystem", "sync", disk.mountpoint])
            let after = try disk.used()
            #expect(before.data - after.data == reclaim)
            // Four tree blocks to spare: the extent items of the freed extents, not estimated.
            #expect(before.metadata - after.metadata <= most + 4 * 16384, "metadata \(before) \(after), \(most)")
        }
    }

    @Test func aSnapshotOutsideTheSetKeepsWhatItSharesAndTheSetThatPinsNothingSaysSo() throws {
        try withDisk { disk in
            try build(disk)
            // s1 alone: S, N, H and T are in s2 as well; R's first version and nothing else.
            let (files, reclaim, _) = try disk.pinned(["s1"])
            #expect(Set(files.keys) == ["R"])
            #expect(reclaim == 2 * Self.mib)
            // s3 holds only what data still holds.
            let nothing = try disk.carve(["snapshots", "pinned", disk.path("s3")])
            #expect(
                nothing.stdout.hasPrefix("\(disk.path("s3")) pins no file data: deleting it frees only "),
                "\(nothing.stdout)")
            #expect(nothing.stdout.split(separator: "\n").count == 1)
        }
    }

    @Test func aDryRunWithPinnedShowsWhatPinnedShows() throws {
        try withDisk { disk in
            try build(disk)
            let pinned = try disk.carve(["snapshots", "pinned", "--json", "--compact", disk.path("s2")])
            let dryRun = try disk.carve([
                "snapshots", "delete", "--dry-run", "--pinned", "--json", "--compact", disk.path("s2"),
            ])
            let plan = try JSONSerialization.jsonObject(with: Data(dryRun.stdout.utf8)) as? [String: Any]
            let own = try JSONSerialization.jsonObject(with: Data(pinned.stdout.utf8)) as? [String: Any]
            let planned = try #require((plan?["pinned"] as? [String: Any])?["filesystems"] as? [[String: Any]])
            let shown = try #require(own?["filesystems"] as? [[String: Any]])
            func rows(_ filesystem: [String: Any]?) -> [String] {
                ((filesystem?["files"] as? [[String: Any]]) ?? []).map { file in
                    ["path", "bytes", "first", "last", "links", "inode"].map { "\(file[$0] ?? "-")" }.joined(
                        separator: " ")
                }
            }
            #expect(rows(planned.first) == rows(shown.first), "\(dryRun.stdout)")
            #expect(rows(planned.first).count == 4)
        }
    }

    /// A snapshot that alone holds a tree of small files has its tree read (whole for
    /// the first of a series, where it changed since the one before for the next), and
    /// every file has the bytes it was written with.
    @Test func snapshotsHoldingManySmallFilesAreReadWholeOrWhereTheyChanged() throws {
        try withDisk { disk in
            func snapshotOther(_ name: String) throws {
                try Shell.check([
                    "btrfs", "-q", "subvolume", "snapshot", "-r", disk.mountpoint + "/other", disk.path(name),
                ])
            }
            try disk.sh(Self.smallFiles(400, in: "other/a"))
            try snapshotOther("o1")
            try disk.sh("rm -r other/a; " + Self.smallFiles(300, in: "other/b"))
            try snapshotOther("o2")
            try disk.sh("rm -r other/b")
            for (set, count, searched) in [
                (["o1"], 400, "searched 1 trees (1 whole"), (["o2"], 300, "searched 1 trees (0 whole"),
                (["o1", "o2"], 700, "searched 2 trees (1 whole"),
            ] {
                let (files, reclaim, stderr) = try disk.pinned(set)
                #expect(files.count == count, "\(set)")
                #expect(files.values.allSatisfy { $0["bytes"] as? Int == 4096 }, "\(set)")
                #expect(reclaim == count * 4096, "\(set)")
                #expect(stderr.contains("looked up 0 extents by their back references, \(searched)"), "\(stderr)")
                #expect(!stderr.contains("again whole"), "\(stderr)")
            }
            let (files, _, _) = try disk.pinned(["o2"])
            #expect(files["b/f7"]?["snapshot"] as? String == disk.path("o2"))
        }
    }

    /// Quotas off: the snapshots blocker of `carve check` names the files only the
    /// snapshot in the way holds, largest first, by their path through it.
    @Test func checkNamesTheLargestFilesTheSnapshotsInTheWayHold() throws {
        try withDisk { disk in
            try disk.sh(
                "i=0; while [ $i -lt 30 ]; do head -c $(( (i + 1) * 512 ))K /dev/urandom > data/old$i; i=$((i+1)); done"
            )
            try disk.snapshot("snap-1")
            try disk.sh("rm data/old*; head -c 100M /dev/urandom > data/new")
            try disk.snapshot("snap-2")
            try Shell.check(["sync"])
            func check(_ target: UInt64) throws -> (Int32, [String: Any]) {
                let result = try Shell.run(
                    [CarveBinary.path, "check", disk.loop.device, "--shrink-to", String(target), "--json"],
                    environment: disk.environment)
                let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
                return (result.status, try #require(json, "\(result.stdout)\(result.stderr)"))
            }
            let (_, probe) = try check(100 << 20)
            let minimum = try #require(probe["minimum_size"] as? Int)
            let without = try #require(probe["minimum_size_without_snapshots"] as? Int, "\(probe)")
            let target = (UInt64((minimum + without) / 2) >> 20) << 20
            let (status, report) = try check(target)
            #expect(status == 3)
            let blockers = (report["blockers"] as? [[String: Any]]) ?? []
            let pinning = try #require(blockers.first { $0["kind"] as? String == "snapshots" }, "\(report)")
            let files = try #require(pinning["pinned_files"] as? [[String: Any]])
            // The five largest of old0 (512K) ... old29 (15M), each as written.
            #expect(files.compactMap { $0["path"] as? String } == ["old29", "old28", "old27", "old26", "old25"])
            #expect(files.compactMap { $0["bytes"] as? Int } == (25...29).reversed().map { ($0 + 1) * 512 << 10 })
            #expect(files.allSatisfy { $0["snapshot"] as? String == disk.path("snap-1") })
            let text = try Shell.run(
                [CarveBinary.path, "check", disk.loop.device, "--shrink-to", String(target)],
                environment: disk.environment)
            #expect(
                text.stdout.contains("the largest files only they hold:\n          15M \(disk.path("snap-1"))/old29\n"),
                "\(text.stdout)")
        }
    }

    func inode(_ path: String) throws -> Int {
        try #require(Int(try Shell.check(["stat", "-c", "%i", path]).trimmingCharacters(in: .whitespacesAndNewlines)))
    }
}

extension ExactSizesIntegrationTests.Disk {
    var environment: [String: String] {
        ["CARVE_LOCK_FILE": loop.directory + "/carve.lock", "CARVE_CACHE_DIR": loop.directory + "/cache"]
    }

    func path(_ name: String) -> String { mountpoint + "/snaps/" + name }

    /// carve with the fixture's lock and cache, exit 0 required.
    func carve(_ arguments: [String]) throws -> Shell.Result {
        try Shell.check(["sync"])
        let result = try Shell.run([CarveBinary.path] + arguments, environment: environment)
        #expect(result.status == 0, "carve \(arguments.joined(separator: " ")): \(result.stderr)")
        return result
    }

    /// The rows of `snapshots pinned --json` for `snapshots`, by path, and the set's data reclaim.
    func pinned(
        _ snapshots: [String], _ extra: [String] = []
    ) throws -> (files: [String: [String: Any]], reclaim: Int, stderr: String) {
        let result = try carve(["snapshots", "pinned", "--json", "--verbose"] + extra + snapshots.map(path))
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let filesystem = try #require((json?["filesystems"] as? [[String: Any]])?.first, "\(result.stdout)")
        var files: [String: [String: Any]] = [:]
        for file in (filesystem["files"] as? [[String: Any]]) ?? [] {
            files[(file["path"] as? String) ?? "<none>"] = file
        }
        return (files, try #require(filesystem["reclaim"] as? Int), result.stderr)
    }

    /// Bytes on disk of inode `inode`'s extents in subvolume `subvolume`, each extent
    /// once, as `btrfs inspect-internal dump-tree` prints the tree.
    func dumpTreeDiskBytes(inode: Int, subvolume: String) throws -> Int {
        try Shell.check(["btrfs", "filesystem", "sync", mountpoint])
        let id = try Shell.check(["btrfs", "inspect-internal", "rootid", subvolume]).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let dump = try Shell.check(["btrfs", "inspect-internal", "dump-tree", "-t", id, loop.device])
        var extents: [String: Int] = [:]
        var inItem = false
        for line in dump.split(separator: "\n") {
            if line.contains(" key (") { inItem = line.contains("key (\(inode) EXTENT_DATA ") }
            guard inItem, let range = line.range(of: "extent data disk byte ") else { continue }
            let fields = line[range.upperBound...].split(separator: " ")
            if fields.count >= 3, fields[0] != "0" { extents[String(fields[0])] = Int(fields[2]) }
        }
        return extents.values.reduce(0, +)
    }

    /// `btrfs filesystem du -s --raw` Exclusive of each of `paths` (the last line is the total).
    func duExclusives(_ paths: [String]) throws -> [String: Int] {
        let lines = try Shell.check(["btrfs", "filesystem", "du", "--raw"] + paths).split(separator: "\n")
            .dropFirst()
        var result: [String: Int] = [:]
        for line in lines {
            let fields = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: true)
            guard fields.count == 4, let exclusive = Int(fields[1]) else { continue }
            result[fields[3].trimmingCharacters(in: .whitespaces)] = exclusive
        }
        return result
    }

    /// Data and metadata bytes used, as `btrfs filesystem df -b` says.
    func used() throws -> (data: Int, metadata: Int) {
        let df = try Shell.check(["btrfs", "filesystem", "df", "-b", mountpoint]).split(separator: "\n")
        func used(_ kind: String) throws -> Int {
            let line = try #require(df.first { $0.hasPrefix(kind + ",") })
            let used = try #require(line.range(of: "used="))
            return try #require(Int(line[used.upperBound...].prefix { $0.isNumber }))
        }
        return (try used("Data"), try used("Metadata"))
    }
}
