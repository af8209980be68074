import CarveCore
import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// The exact sizes cache with the carve binary on a real loop btrfs: the sizes with the
/// cache, without it and from `btrfs filesystem du -s` are the same bytes; a snapshot
/// made writable, written and made read-only again is read again; every damaged cache
/// file is replaced, never followed or trusted; a cache that cannot be written costs a
/// warning, not a wrong size.
@Suite(.serialized, .integration())
struct ExactSizesCacheIntegrationTests {
    typealias Disk = ExactSizesIntegrationTests.Disk

    struct Run {
        var sizes: [String: (exclusive: Int, referenced: Int)]
        var stderr: String
    }

    /// `carve snapshots list MNT --sizes exact --json` with the cache in `cache`.
    func list(_ disk: Disk, cache: String, _ extra: [String] = [], environment: [String: String] = [:]) throws -> Run {
        try Shell.check(["sync"])
        let result = try Shell.run(
            [CarveBinary.path, "snapshots", "list", disk.mountpoint, "--sizes", "exact", "--json"] + extra,
            environment: ["CARVE_CACHE_DIR": cache].merging(environment) { $1 })
        #expect(result.status == 0, "\(result.stderr)")
        return try parse(result.stdout, stderr: result.stderr)
    }

    /// The sizes in a listing's JSON.
    func parse(_ stdout: String, stderr: String) throws -> Run {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])
        var sizes: [String: (Int, Int)] = [:]
        for snapshot in (json["snapshots"] as? [[String: Any]]) ?? [] {
            sizes[try #require(snapshot["path"] as? String)] = (
                try #require(snapshot["exclusive"] as? Int), try #require(snapshot["referenced"] as? Int)
            )
        }
        return Run(sizes: sizes, stderr: stderr)
    }

    func expectSame(_ a: Run, _ b: Run, _ what: String) {
        #expect(a.sizes.count == b.sizes.count, "\(what)")
        for (path, size) in a.sizes {
            #expect(b.sizes[path]?.exclusive == size.exclusive, "\(what): \(path) exclusive")
            #expect(b.sizes[path]?.referenced == size.referenced, "\(what): \(path) referenced")
        }
    }

    /// Every snapshot the fixture made under snaps/ listed, each with du's Exclusive bytes.
    func expectDu(_ run: Run, _ disk: Disk) throws {
        let made = try FileManager.default.contentsOfDirectory(atPath: disk.mountpoint + "/snaps")
        #expect(Set(run.sizes.keys) == Set(made.map { disk.mountpoint + "/snaps/" + $0 }))
        for (path, size) in run.sizes {
            #expect(UInt64(size.exclusive) == (try disk.duExclusive(path)), "\(path)")
        }
    }

    /// Files rewritten between read-only snapshots, no reflinks (du's Exclusive then agrees).
    func series(_ disk: Disk, count: Int) throws {
        try disk.sh("i=0; while [ $i -lt 40 ]; do head -c 70K /dev/urandom > data/f$i; i=$((i+1)); done")
        for index in 1...count {
            try disk.snapshot("s\(index)")
            try disk.sh(
                "i=0; while [ $i -lt 4 ]; do head -c 90K /dev/urandom > data/f$(( (i * 7 + \(index)) % 40 )); i=$((i+1)); done"
            )
        }
    }

    func withDisk(_ body: (Disk, String) throws -> Void) throws {
        let disk = try Disk(compress: false)
        defer { disk.loop.cleanup() }
        try body(disk, disk.loop.directory + "/cache")
    }

    func cacheFile(_ disk: Disk, _ cache: String) throws -> String {
        let uuid = try Shell.check(["blkid", "-s", "UUID", "-o", "value", disk.loop.device])
        return cache + "/" + uuid.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func theCacheGivesTheSizesOfAFullScanAndOfDu() throws {
        try withDisk { disk, cache in
            try series(disk, count: 5)
            let uncached = try list(disk, cache: cache, environment: ["CARVE_CACHE": "off"])
            #expect(!FileManager.default.fileExists(atPath: cache), "CARVE_CACHE=off writes nothing")
            let first = try list(disk, cache: cache)
            let file = try cacheFile(disk, cache)
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            #expect(attributes[.posixPermissions] as? Int == 0o600)
            #expect(attributes[.ownerAccountID] as? Int == 0)
            let second = try list(disk, cache: cache, ["--verbose"])
            #expect(second.stderr.contains("(5 more from the cache)"), "\(second.stderr)")
            #expect(!first.stderr.contains("exact sizes: read"), "the scan's figures only under --verbose")
            let flag = try list(disk, cache: cache, ["--no-cache", "--verbose"])
            #expect(!flag.stderr.contains("from the cache"), "\(flag.stderr)")
            expectSame(uncached, first, "first run with the cache")
            expectSame(uncached, second, "run from the cache")
            try expectDu(second, disk)
            // A new snapshot and a deleted one: only the new one and the writable trees are read.
            try disk.sh("head -c 300K /dev/urandom > data/new")
            try disk.snapshot("s6")
            try Shell.check(["btrfs", "subvolume", "delete", disk.mountpoint + "/snaps/s2"])
            // du asks the extent tree, which holds s2's references until the cleaner is done.
            try Shell.check(["btrfs", "filesystem", "sync", disk.mountpoint])
            try Shell.check(["btrfs", "subvolume", "sync", disk.mountpoint])
            let third = try list(disk, cache: cache, ["--verbose"])
            #expect(third.stderr.contains("(4 more from the cache)"), "\(third.stderr)")
            expectSame(try list(disk, cache: cache, ["--no-cache"]), third, "after a new snapshot")
            try expectDu(third, disk)
        }
    }

    @Test func aSnapshotMadeWritableWrittenAndMadeReadOnlyAgainIsReadAgain() throws {
        try withDisk { disk, cache in
            try series(disk, count: 3)
            let before = try list(disk, cache: cache)
            let s2 = disk.mountpoint + "/snaps/s2"
            try Shell.check(["btrfs", "property", "set", "-ts", s2, "ro", "false"])
            try disk.sh("head -c 2M /dev/urandom > snaps/s2/added; rm snaps/s2/f1")
            try Shell.check(["btrfs", "property", "set", "-ts", s2, "ro", "true"])
            let after = try list(disk, cache: cache, ["--verbose"])
            #expect(after.stderr.contains("(2 more from the cache)"), "\(after.stderr)")
            let grown = try #require(after.sizes[s2]).exclusive - (try #require(before.sizes[s2]).exclusive)
            #expect(grown >= 2 << 20, "s2 holds the 2M written into it: \(grown)")
            expectSame(try list(disk, cache: cache, environment: ["CARVE_CACHE": "off"]), after, "rescanned")
            try expectDu(after, disk)
        }
    }

    @Test func aDamagedCacheFileIsReplacedNeverTrustedOrFollowed() throws {
        try withDisk { disk, cache in
            try series(disk, count: 3)
            let truth = try list(disk, cache: cache)
            try expectDu(truth, disk)
            let file = try cacheFile(disk, cache)
            let good = try Data(contentsOf: URL(fileURLWithPath: file))
            let outside = disk.loop.directory + "/outside"
            let damages: [(String, () throws -> Void)] = [
                ("truncated", { try good.prefix(good.count / 2).write(to: URL(fileURLWithPath: file)) }),
                (
                    "checksum",
                    {
                        var flipped = good
                        flipped[good.count - 3] ^= 0x10
                        try flipped.write(to: URL(fileURLWithPath: file))
                    }
                ),
                (
                    "version",
                    {
                        var other = good
                        other[8] = 99
                        try other.write(to: URL(fileURLWithPath: file))
                    }
                ),
                ("owned by another user", { try Shell.check(["chown", "65534", file]) }),
                (
                    "symlink",
                    {
                        try good.write(to: URL(fileURLWithPath: outside))
                        try FileManager.default.removeItem(atPath: file)
                        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: outside)
                    }
                ),
            ]
            for (what, damage) in damages {
                try damage()
                let quiet = try list(disk, cache: cache)
                #expect(!quiet.stderr.contains("cache"), "\(what): silent without --verbose: \(quiet.stderr)")
                expectSame(truth, quiet, what)
                // Rewritten: a regular file of root's, 0600, read back on the next run.
                let attributes = try FileManager.default.attributesOfItem(atPath: file)
                #expect(attributes[.type] as? FileAttributeType == .typeRegular, "\(what)")
                #expect(attributes[.ownerAccountID] as? Int == 0, "\(what)")
                let again = try list(disk, cache: cache, ["--verbose"])
                #expect(again.stderr.contains("(3 more from the cache)"), "\(what): \(again.stderr)")
                try damage()
                let verbose = try list(disk, cache: cache, ["--verbose"])
                #expect(verbose.stderr.contains("exact sizes cache not used, rebuilt"), "\(what): \(verbose.stderr)")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: outside)) == good, "the symlink's target is untouched")
        }
    }

    @Test func aCacheThatCannotBeWrittenCostsOneWarningNotAWrongSize() throws {
        try withDisk { disk, cache in
            try series(disk, count: 3)
            let truth = try list(disk, cache: cache, environment: ["CARVE_CACHE": "off"])
            try expectDu(truth, disk)
            for (what, options) in [("read-only", "ro,size=1m"), ("full", "size=8k")] {
                let directory = disk.loop.directory + "/\(what)-cache"
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try Shell.check(["mount", "-t", "tmpfs", "-o", options + ",mode=0700", "tmpfs", directory])
                defer { _ = try? Shell.run(["umount", directory]) }
                if what == "full" { _ = try Shell.run(["dd", "if=/dev/zero", "of=\(directory)/fill", "bs=4k"]) }
                let run = try list(disk, cache: directory)
                expectSame(truth, run, what)
                let warnings = run.stderr.split(separator: "\n").filter { $0.hasPrefix("carve: warning:") }
                #expect(warnings.count == 1, "\(what): \(run.stderr)")
                #expect(run.stderr.contains("sizes are exact"), "\(what): \(run.stderr)")
                // Nothing half-written is left behind.
                let left = try FileManager.default.contentsOfDirectory(atPath: directory)
                #expect(left == (what == "full" ? ["fill"] : []), "\(what)")
            }
        }
    }

    @Test func twoCarvesAtOnceLeaveAUsableCache() throws {
        try withDisk { disk, cache in
            try series(disk, count: 4)
            let truth = try list(disk, cache: cache, environment: ["CARVE_CACHE": "off"])
            try expectDu(truth, disk)
            // Six at once, each with its own output and exit status.
            let runs = disk.loop.directory + "/runs"
            try FileManager.default.createDirectory(atPath: runs, withIntermediateDirectories: false)
            let script = (0..<6).map { index in
                "('\(CarveBinary.path)' snapshots list '\(disk.mountpoint)' --sizes exact --json"
                    + " >'\(runs)/\(index).out' 2>'\(runs)/\(index).err'; echo $? >'\(runs)/\(index).status') &"
            }.joined(separator: " ")
            let all = try Shell.run(["sh", "-c", script + " wait"], environment: ["CARVE_CACHE_DIR": cache])
            #expect(all.status == 0, "\(all.stderr)")
            for index in 0..<6 {
                func read(_ suffix: String) throws -> String {
                    try String(contentsOfFile: "\(runs)/\(index).\(suffix)", encoding: .utf8)
                }
                let stderr = try read("err")
                #expect(try read("status") == "0\n", "carve \(index): \(stderr)")
                #expect(stderr == truth.stderr, "carve \(index) said more or less than a lone run: \(stderr)")
                expectSame(truth, try parse(try read("out"), stderr: stderr), "carve \(index) of 6 at once")
            }
            let after = try list(disk, cache: cache, ["--verbose"])
            #expect(after.stderr.contains("(4 more from the cache)"), "\(after.stderr)")
            expectSame(truth, after, "after concurrent writers")
            #expect((try FileManager.default.contentsOfDirectory(atPath: cache)).count == 1, "no temporaries left")
        }
    }
}
