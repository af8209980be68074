import CarveTestSupport
import Foundation
import Testing

/// A btrfs whose data is full to the last byte (a write fails with ENOSPC): plain,
/// snapper (made by snapper) and timeshift snapshots each pin data of their own, and
/// `delete --wait` and `thin --wait` still delete them whole, manager metadata and all,
/// and give the space back. The markers carve writes before a snapper or timeshift
/// snapshot goes are small files btrfs keeps in metadata, which a full data area leaves room for.
@Suite(.serialized, .integration(needing: "snapper"))
struct FullDiskDeletionIntegrationTests {
    static let timeshiftDate = "2026-11-01_12-00-01"

    /// Snapshots of every manager on a 512 MiB btrfs, then its data filled up.
    func withFullDisk(_ body: (DeletionDisk, _ config: String) throws -> Void) throws {
        try withDeletionDisk(size: "512M") { disk in
            let mnt = disk.mountpoint
            try withSnapperConfig(on: disk) { config in
                for name in ["p1", "p2"] { try disk.snapshot(name, mebibytes: 30, exclusive: true) }
                for number in 1...2 {
                    try write(mnt + "/data/s\(number)", mebibytes: 30)
                    try Shell.check(["snapper", "--no-dbus", "-c", config, "create", "-d", "full disk \(number)"])
                    try FileManager.default.removeItem(atPath: mnt + "/data/s\(number)")
                }
                try Shell.check(["btrfs", "-q", "subvolume", "create", mnt + "/home"])
                try write(mnt + "/home/t", mebibytes: 30)
                let date = mnt + "/timeshift-btrfs/snapshots/" + Self.timeshiftDate
                try FileManager.default.createDirectory(atPath: date, withIntermediateDirectories: true)
                try Shell.check(["btrfs", "-q", "subvolume", "snapshot", "-r", mnt + "/home", date + "/@home"])
                try #"{"created": "1793534401", "tags": "D", "comments": "full disk"}"#
                    .write(toFile: date + "/info.json", atomically: false, encoding: .utf8)
                try FileManager.default.removeItem(atPath: mnt + "/home/t")
                try fill(mnt)
                try body(disk, config)
            }
        }
    }

    func write(_ path: String, mebibytes: Int) throws {
        try Shell.check(["dd", "if=/dev/urandom", "of=\(path)", "bs=1M", "count=\(mebibytes)", "status=none"])
    }

    /// Writes until btrfs says ENOSPC, in large then small pieces, and checks one more byte fails.
    func fill(_ mnt: String) throws {
        for (index, size) in ["1M", "64K", "4K"].enumerated() {
            _ = try Shell.run([
                "sh", "-c", "dd if=/dev/urandom of=\(mnt)/data/fill\(index) bs=\(size) status=none; sync",
            ])
        }
        let more = try Shell.run(["sh", "-c", "head -c 65536 /dev/urandom > \(mnt)/data/more && sync \(mnt)/data/more"])
        #expect(more.status != 0 && more.stderr.contains("No space left"), "the data area is not full: \(more.stderr)")
    }

    func leftovers(_ disk: DeletionDisk) throws -> [String] {
        try Shell.check(["find", disk.mountpoint, "-name", ".carve-deleting"]).split(separator: "\n").map(String.init)
    }

    @Test func deleteWithWaitEmptiesAFullDisk() throws {
        try withFullDisk { disk, config in
            let result = try disk.carve([
                "snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--yes", "--wait", "--json",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let report = try DeletionDisk.json(result)
            #expect(DeletionDisk.ids(report["deleted"]).count == 5, "\(result.stdout)")
            #expect(try disk.subvolumes() == ["data", "data/.snapshots", "home"])
            let snapper = try Shell.check(["snapper", "--no-dbus", "-c", config, "list", "--columns", "number"])
            #expect(
                snapper.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { Int($0) != nil }
                    == ["0"], "\(snapper)")
            #expect(
                !FileManager.default.fileExists(
                    atPath: disk.mountpoint + "/timeshift-btrfs/snapshots/" + Self.timeshiftDate))
            #expect(try leftovers(disk).isEmpty)
            // The space is back: the write that failed now succeeds.
            #expect(
                try Shell.run(["sh", "-c", "head -c 65536 /dev/urandom > \(disk.mountpoint)/data/more && sync"]).status
                    == 0)
        }
    }

    @Test func thinWithWaitFreesAFullDisk() throws {
        try withFullDisk { disk, config in
            let result = try disk.carve([
                "snapshots", "thin", disk.mountpoint, "--free", "100M", "--sizes", "exact", "--yes", "--wait", "--json",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let deleted = DeletionDisk.ids(try DeletionDisk.json(result)["deleted"])
            #expect(deleted.count >= 4, "\(result.stdout)")
            #expect(try leftovers(disk).isEmpty)
            let left = try disk.subvolumes().filter { !["data", "data/.snapshots", "home"].contains($0) }
            #expect(left.count == 5 - deleted.count, "\(left)")
            #expect(
                try Shell.run(["sh", "-c", "head -c 65536 /dev/urandom > \(disk.mountpoint)/data/more && sync"]).status
                    == 0)
        }
    }
}
