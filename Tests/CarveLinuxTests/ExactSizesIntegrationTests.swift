import CarveCore
import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// `--sizes exact` on real loop-backed btrfs, compared with the reference tools on
/// the same filesystem: `btrfs filesystem du -s` Exclusive (data only, and it calls
/// an extent shared when another file of the same subvolume reflinks it, so it is
/// compared only on workloads without such reflinks or compression), `btrfs qgroup
/// show --raw` exclusive (data plus the tree blocks only that subvolume has: carve's
/// data number plus whole tree blocks, at least the root block, at most carve's
/// estimate of the tree), and, for sets, the measured change in used space after
/// deleting them and waiting for the cleaner.
@Suite(.serialized, .integration())
struct ExactSizesIntegrationTests {
    /// A btrfs with a source subvolume `data`, another plain subvolume `other`, and `snaps/`.
    final class Disk {
        let loop: LoopDisk
        let mountpoint: String
        init(compress: Bool) throws {
            loop = try LoopDisk(size: "1G")
            do {
                try Shell.check(["mkfs.btrfs", "-q", "-f", loop.device])
                mountpoint = try loop.mount(loop.device, options: compress ? "compress=zstd" : nil, name: "mnt")
                try Shell.check(["btrfs", "subvolume", "create", mountpoint + "/data"])
                try Shell.check(["btrfs", "subvolume", "create", mountpoint + "/other"])
                try FileManager.default.createDirectory(
                    atPath: mountpoint + "/snaps", withIntermediateDirectories: true)
            } catch {
                loop.cleanup()
                throw error
            }
        }

        func sh(_ script: String) throws { try Shell.check(["sh", "-euc", "cd '\(mountpoint)'; " + script]) }
        func snapshot(_ name: String) throws {
            try Shell.check([
                "btrfs", "subvolume", "snapshot", "-r", mountpoint + "/data", mountpoint + "/snaps/" + name,
            ])
        }

        /// The listing with exact sizes, read in-process through the real backend.
        func exact() throws -> VolumeListing {
            try Shell.check(["sync"])
            let backend = SnapshotBackendRegistry.classifying(BtrfsSnapshotBackend())
            return try backend.subvolumes(of: try backend.filesystem(containing: mountpoint), sizes: .exact)
        }

        /// `btrfs filesystem du -s --raw` Exclusive of one path.
        func duExclusive(_ path: String) throws -> UInt64 {
            let lines = try Shell.check(["btrfs", "filesystem", "du", "-s", "--raw", path]).split(separator: "\n")
            let fields = try #require(lines.last).split(separator: " ", omittingEmptySubsequences: true)
            return try #require(UInt64(fields[1]))
        }

        /// Level-0 qgroup exclusive bytes by subvolume id, after enabling quotas on this
        /// test filesystem and a full rescan.
        func qgroupExclusive() throws -> [UInt64: UInt64] {
            try Shell.check(["sync"])
            try Shell.check(["btrfs", "quota", "enable", mountpoint])
            try Shell.check(["btrfs", "quota", "rescan", "-w", mountpoint])
            var result: [UInt64: UInt64] = [:]
            for line in try Shell.check(["btrfs", "qgroup", "show", "--raw", mountpoint]).split(separator: "\n") {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count >= 3, fields[0].hasPrefix("0/"), let id = UInt64(fields[0].dropFirst(2)),
                    let exclusive = UInt64(fields[2])
                else { continue }
                result[id] = exclusive
            }
            return result
        }
    }

    func withDisk(compress: Bool = false, _ body: (Disk) throws -> Void) throws {
        let disk = try Disk(compress: compress)
        defer { disk.loop.cleanup() }
        try body(disk)
    }

    /// Writes, snapshots, partial overwrites, deletions and a reflink into another subvolume.
    func churn(_ disk: Disk) throws {
        try disk.sh(
            "head -c 3M /dev/urandom > data/a; head -c 5M /dev/urandom > data/b; head -c 700K /dev/urandom > data/c")
        try disk.snapshot("s1")
        try disk.sh(
            "rm data/a; head -c 2M /dev/urandom > data/d; dd if=/dev/urandom of=data/b bs=64K count=4 seek=8 conv=notrunc status=none"
        )
        try disk.snapshot("s2")
        try disk.sh("cp --reflink=always data/b other/b; rm data/b data/d; head -c 1M /dev/urandom > data/e")
        try disk.snapshot("s3")
        try disk.sh("head -c 4M /dev/urandom > data/f")
        try disk.snapshot("s4")
    }

    /// qgroup exclusive minus carve's data bytes must be whole tree blocks: at least
    /// the snapshot's root block, at most carve's estimate of its whole tree.
    func expectMetadataWithinEstimate(_ listing: VolumeListing, qgroups: [UInt64: UInt64]) throws {
        let exact = try #require(listing.exact)
        for snapshot in listing.subvolumes where snapshot.isSnapshot {
            let data = try #require(snapshot.exclusive)
            let qgroup = try #require(qgroups[snapshot.id])
            #expect(qgroup >= data + exact.nodeSize, "\(snapshot.path): qgroup \(qgroup), carve data \(data)")
            let metadata = qgroup - min(qgroup, data)
            #expect(metadata % exact.nodeSize == 0, "\(snapshot.path): qgroup \(qgroup), carve data \(data)")
            #expect(
                metadata <= exact.treeBytes[snapshot.id] ?? 0,
                "\(snapshot.path): metadata \(metadata) above the estimate")
        }
    }

    @Test func singleSnapshotsEqualDuExclusiveAndQgroupExclusive() throws {
        try withDisk { disk in
            try churn(disk)
            let listing = try disk.exact()
            let snapshots = listing.subvolumes.filter(\.isSnapshot)
            #expect(snapshots.count == 4)
            // Something to compare: s1 alone holds a (3M) and s2 alone d (2M).
            #expect(snapshots.map { $0.exclusive ?? 0 }.reduce(0, +) >= 5 << 20)
            for snapshot in snapshots {
                let path = try #require(snapshot.mountedPath)
                #expect(snapshot.exclusive == (try disk.duExclusive(path)), "\(path)")
            }
            try expectMetadataWithinEstimate(listing, qgroups: try disk.qgroupExclusive())
        }
    }

    @Test func compressedAndReflinkedExtentsMatchQgroupExclusive() throws {
        try withDisk(compress: true) { disk in
            // Compressible text, a reflink inside the snapshot's own subvolume, and a
            // file of which only a part is left referenced.
            try disk.sh(
                "yes carve | head -c 6M > data/text; head -c 2M /dev/urandom > data/r; cp --reflink=always data/r data/r2"
            )
            try disk.sh("head -c 4M /dev/urandom > data/p; sync; truncate -s 1M data/p")
            try disk.snapshot("s1")
            try disk.sh("rm data/text data/r data/r2 data/p; yes other | head -c 3M > data/text2")
            try disk.snapshot("s2")
            try disk.sh("rm data/text2")
            let listing = try disk.exact()
            let s1 = try #require(listing.subvolumes.first { $0.path == "snaps/s1" })
            // 6M of text compresses to far less on disk; the random 2M is counted once; p's 4M extent whole.
            let exclusive = try #require(s1.exclusive)
            #expect(exclusive > 6 << 20 && exclusive < 7 << 20, "s1 exclusive \(exclusive)")
            try expectMetadataWithinEstimate(listing, qgroups: try disk.qgroupExclusive())
        }
    }

    @Test func setReclaimEqualsTheMeasuredChangeAfterDeletingTheSet() throws {
        try withDisk(compress: true) { disk in
            try churn(disk)
            // Extents only s2 and s3 share: exclusive to neither, freed by the pair.
            try disk.sh("head -c 6M /dev/urandom > data/g; yes shared | head -c 4M > data/h")
            try disk.snapshot("s5")
            try disk.snapshot("s6")
            try disk.sh("rm data/g data/h")
            let listing = try disk.exact()
            let exact = try #require(listing.exact)
            let set = listing.subvolumes.filter { ["snaps/s1", "snaps/s5", "snaps/s6"].contains($0.path) }
            #expect(set.count == 3)
            let predicted = exact.reclaim(deleting: set.map(\.id)).data
            let sum = set.map { $0.exclusive ?? 0 }.reduce(0, +)
            #expect(predicted >= sum + (6 << 20), "the set frees what its members share: \(predicted) vs sum \(sum)")

            let paths = set.compactMap(\.mountedPath)
            let result = try Shell.run(
                [CarveBinary.path, "snapshots", "delete", "--sizes", "exact", "--yes", "--wait", "--json"] + paths,
                environment: ["CARVE_LOCK_FILE": disk.loop.directory + "/carve.lock"])
            #expect(result.status == 0, "\(result.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let estimated = try #require(json["estimated_reclaim"] as? Int)
            let measured = try #require(json["measured_reclaim"] as? Int)
            #expect(UInt64(estimated) == predicted)
            #expect(
                abs(measured - estimated) <= estimated / 100 + (1 << 20), "estimated \(estimated), measured \(measured)"
            )
        }
    }

    @Test func thinChoosesByTheSetAndTheMeasuredReclaimMatches() throws {
        try withDisk { disk in
            // Each snapshot shares 4M with the next one only: singles free 0, pairs 4M.
            for index in 1...5 {
                try disk.sh("head -c 4M /dev/urandom > data/f\(index)")
                try disk.snapshot("t\(index)")
                if index > 1 { try disk.sh("rm data/f\(index - 1)") }
            }
            try disk.sh("rm data/f5")
            let lock = ["CARVE_LOCK_FILE": disk.loop.directory + "/carve.lock"]
            let quota = try Shell.run(
                [CarveBinary.path, "snapshots", "thin", disk.mountpoint, "--free", "7M", "--sizes", "quota", "--yes"],
                environment: lock)
            #expect(quota.status == 1, "quotas are off: nothing to go on")
            let result = try Shell.run(
                [
                    CarveBinary.path, "snapshots", "thin", disk.mountpoint, "--free", "7M", "--sizes", "exact", "--yes",
                    "--wait", "--json",
                ],
                environment: lock)
            #expect(result.status == 0, "\(result.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            // t1 frees nothing alone; t1+t2 free f1 (4M); t1..t3 free f1 and f2 (8M).
            #expect(DeletionDisk.ids(json["deleted"]).count == 3)
            let estimated = try #require(json["estimated_reclaim"] as? Int)
            let measured = try #require(json["measured_reclaim"] as? Int)
            #expect(estimated == 8 << 20)
            #expect(
                abs(measured - estimated) <= estimated / 100 + (1 << 20), "estimated \(estimated), measured \(measured)"
            )
            let left = try Shell.check(["btrfs", "subvolume", "list", disk.mountpoint])
            #expect(left.contains("snaps/t4") && left.contains("snaps/t5") && !left.contains("snaps/t3"))
        }
    }

    /// Quotas off: `carve check` scans, names the snapshot pinning deleted data and
    /// prints a thin command that, run as printed, deletes exactly that snapshot.
    @Test func checkNamesTheSnapshotsInTheWayWithQuotasOff() throws {
        try withDisk { disk in
            try disk.sh("i=0; while [ $i -lt 40 ]; do head -c 10M /dev/urandom > data/old$i; i=$((i+1)); done; sync")
            try disk.snapshot("snap-1")
            try disk.sh(
                "rm data/old*; i=0; while [ $i -lt 10 ]; do head -c 10M /dev/urandom > data/new$i; i=$((i+1)); done; sync"
            )
            try disk.snapshot("snap-2")
            func check(_ target: UInt64) throws -> (Int32, [String: Any]) {
                let result = try Shell.run([
                    CarveBinary.path, "check", disk.loop.device, "--shrink-to", String(target), "--json",
                ])
                let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
                return (result.status, try #require(json, "\(result.stdout)\(result.stderr)"))
            }
            let (_, probe) = try check(100 << 20)
            let minimum = try #require(probe["minimum_size"] as? Int)
            let without = try #require(probe["minimum_size_without_snapshots"] as? Int, "\(probe)")
            #expect(without + (300 << 20) < minimum, "400M pinned by snap-1: \(without) vs \(minimum)")
            let target = (UInt64((minimum + without) / 2) >> 20) << 20
            let (status, report) = try check(target)
            #expect(status == 3)
            let blockers = (report["blockers"] as? [[String: Any]]) ?? []
            let pinning = try #require(blockers.first { $0["kind"] as? String == "snapshots" }, "\(report)")
            #expect((pinning["detail"] as? String)?.contains("snaps/snap-1") == true)
            #expect((pinning["detail"] as? String)?.contains("snap-2") == false)
            let commands = ((report["remedies"] as? [[String: Any]]) ?? []).compactMap { $0["command"] as? String }
            let thin = try #require(commands.first { $0.hasPrefix("carve snapshots thin ") }, "\(commands)")
            #expect(thin.contains(" --sizes exact"))
            let run = try Shell.run(
                [CarveBinary.path] + thin.split(separator: " ").dropFirst().map(String.init) + ["--yes"],
                environment: ["CARVE_LOCK_FILE": disk.loop.directory + "/carve.lock"])
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: disk.mountpoint + "/snaps/snap-1"))
            #expect(FileManager.default.fileExists(atPath: disk.mountpoint + "/snaps/snap-2"))
        }
    }

    /// Exact sizes, and `snapshots pinned`, which reads them, say the same without root.
    @Test func exactSizesNeedRoot() throws {
        try withDisk { disk in
            try disk.snapshot("s1")
            let bin = disk.loop.directory + "/bin"
            try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
            let copy = try CarveBinary.copy(into: bin)
            for path in [disk.loop.directory, disk.mountpoint] {
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
            }
            for arguments in [
                ["snapshots", "list", disk.mountpoint, "--sizes", "exact"],
                ["snapshots", "pinned", disk.mountpoint + "/snaps/s1"],
            ] {
                let result = try Shell.run(
                    ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", copy] + arguments)
                #expect(result.status == 77, "\(arguments): \(result.stderr)")
                #expect(result.stderr == "carve: reading exact sizes (--sizes exact) needs root\n")
            }
        }
    }
}
