import CarveTestSupport
import Foundation
import Testing

/// snapper's own snapshots deleted by carve: afterwards `snapper list` agrees and no
/// `.snapshots/N` is left without its subvolume.
@Suite(.serialized, .enabled(if: Integration.enabled && Shell.has("snapper"), "needs root, loop devices and snapper"))
struct SnapperDeleteIntegrationTests {
    /// Runs `body` with a snapper config of our own on the disk's `data` subvolume,
    /// deleted afterwards; other configs are never touched.
    func withSnapper(_ body: (DeletionDisk, String) throws -> Void) throws {
        try withDeletionDisk { disk in
            let config = "carvetest\(UInt32.random(in: 0..<UInt32.max))"
            try Shell.check(["snapper", "--no-dbus", "-c", config, "create-config", disk.mountpoint + "/data"])
            defer { _ = try? Shell.run(["snapper", "--no-dbus", "-c", config, "delete-config"]) }
            try body(disk, config)
        }
    }

    func create(_ config: String, _ description: String, userdata: String? = nil) throws {
        try Shell.check(["snapper", "--no-dbus", "-c", config, "create", "-d", description]
            + (userdata.map { ["--userdata", $0] } ?? []))
    }

    /// The numbers `snapper list` shows, 0 (the current system) left out.
    func snapperNumbers(_ config: String) throws -> [Int] {
        try Shell.check(["snapper", "--no-dbus", "-c", config, "--csvout", "list", "--columns", "number"])
            .split(separator: "\n").dropFirst().compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.filter { $0 != 0 }.sorted()
    }

    /// `.snapshots/N` directories, each checked to still hold its snapshot subvolume.
    func metadataDirectories(_ disk: DeletionDisk) throws -> [Int] {
        let subvolumes = Set(try disk.subvolumes())
        let names = try FileManager.default.contentsOfDirectory(atPath: disk.mountpoint + "/data/.snapshots")
        for name in names {
            #expect(subvolumes.contains("data/.snapshots/\(name)/snapshot"), ".snapshots/\(name) is left without its subvolume")
        }
        return names.compactMap(Int.init).sorted()
    }

    @Test func byNumberAndByAgeSnapperAgrees() throws {
        try withSnapper { disk, config in
            for index in 1...5 { try create(config, "carve test \(index)") }
            let byNumber = try disk.carve(["snapshots", "delete", "\(config):2", "\(config):4-9", "--yes"])
            #expect(byNumber.status == 0, "\(byNumber.stderr)")
            #expect(try snapperNumbers(config) == [1, 3])
            #expect(try metadataDirectories(disk) == [1, 3])

            sleep(3)
            for index in 6...7 { try create(config, "carve test \(index)") }
            // snapper numbers on from the highest number left: these are 4 and 5.
            let fresh = try snapperNumbers(config).filter { ![1, 3].contains($0) }
            #expect(fresh.count == 2)
            let byAge = try disk.carve([
                "snapshots", "delete", "--filesystem", disk.mountpoint, "--manager", "snapper", "--older-than", "2s",
                "--yes", "--json",
            ])
            #expect(byAge.status == 0, "\(byAge.stderr)")
            let deleted = try DeletionDisk.json(byAge)["deleted"] as? [[String: Any]] ?? []
            #expect(deleted.compactMap { $0["number"] as? Int } == [1, 3])
            #expect(deleted.allSatisfy { $0["config"] as? String == config })
            #expect(try snapperNumbers(config) == fresh)
            #expect(try metadataDirectories(disk) == fresh)
        }
    }

    @Test func importantAndZeroAreKept() throws {
        try withSnapper { disk, config in
            try create(config, "keep me", userdata: "important=yes")
            try create(config, "plain")
            let zero = try disk.carve(["snapshots", "delete", "\(config):0", "--yes"])
            #expect(zero.status == 64)
            #expect(zero.stderr.contains("current system"))
            let refused = try disk.carve(["snapshots", "delete", "\(config):1-2", "--yes"])
            #expect(refused.status == 4, "\(refused.stderr)")
            #expect(refused.stderr.contains("snapper marked it important"))
            #expect(try snapperNumbers(config) == [1])
            #expect(try disk.carve(["snapshots", "delete", "\(config):1", "--yes", "--include-important"]).status == 0)
            #expect(try snapperNumbers(config).isEmpty)
            #expect(try metadataDirectories(disk).isEmpty)
        }
    }
}
