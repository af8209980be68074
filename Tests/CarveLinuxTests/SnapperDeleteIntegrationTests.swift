import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// snapper's own snapshots deleted by carve: afterwards `snapper list` agrees and no
/// `.snapshots/N` is left without its subvolume.
@Suite(.serialized, .integration(needing: "snapper"))
struct SnapperDeleteIntegrationTests {
    func withSnapper(_ body: (DeletionDisk, String) throws -> Void) throws {
        try withDeletionDisk { disk in try withSnapperConfig(on: disk) { config in try body(disk, config) } }
    }

    func create(_ config: String, _ description: String, userdata: String? = nil) throws {
        try Shell.check(
            ["snapper", "--no-dbus", "-c", config, "create", "-d", description]
                + (userdata.map { ["--userdata", $0] } ?? []))
    }

    /// The numbers `snapper list` shows, 0 (the current system) left out.
    func snapperNumbers(_ config: String) throws -> [Int] {
        try Shell.check(["snapper", "--no-dbus", "-c", config, "--csvout", "list", "--columns", "number"])
            .split(separator: "\n").dropFirst().compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.filter {
                $0 != 0
            }.sorted()
    }

    /// `.snapshots/N` directories that hold their snapshot subvolume. Any other must be
    /// one snapper keeps (UNIQUE_NUMBERS): empty.
    func metadataDirectories(_ disk: DeletionDisk, source: String = "data") throws -> [Int] {
        let subvolumes = Set(try disk.subvolumes())
        let directory = disk.mountpoint + "/\(source)/.snapshots"
        let numbers = try FileManager.default.contentsOfDirectory(atPath: directory).compactMap(Int.init).sorted()
        let held = numbers.filter { subvolumes.contains("\(source)/.snapshots/\($0)/snapshot") }
        for number in numbers where !held.contains(number) {
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: "\(directory)/\(number)").isEmpty,
                ".snapshots/\(number) is left without its subvolume, and is not empty")
        }
        return held
    }

    @Test func byNumberAndByAgeSnapperAgrees() throws {
        try withSnapper { disk, config in
            for index in 1...5 { try create(config, "carve test \(index)") }
            let byNumber = try disk.carve(["snapshots", "delete", "\(config):2", "\(config):4-9", "--yes"])
            #expect(byNumber.status == 0, "\(byNumber.stderr)")
            #expect(try snapperNumbers(config) == [1, 3])
            #expect(try metadataDirectories(disk) == [1, 3])

            sleep(2)
            // Snapper dates to the second: the boundary too, so 6 and 7 are never before it.
            let boundary = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            for index in 6...7 { try create(config, "carve test \(index)") }
            // snapper numbers on from the highest directory left (see SnapperNumberingIntegrationTests).
            let fresh = try snapperNumbers(config).filter { ![1, 3].contains($0) }
            #expect(fresh.count == 2)
            let byAge = try disk.carve([
                "snapshots", "delete", "--filesystem", disk.mountpoint, "--manager", "snapper",
                "--before", DateText.iso8601(boundary, timeZone: TimeZone(identifier: "UTC")!),
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

/// carve against snapper itself: the same deletions on two configs of one disk leave
/// the same `.snapshots` directories, filelist caches included, and the same next
/// number; with UNIQUE_NUMBERS="yes" the highest number's directory stays, emptied.
@Suite(.serialized, .integration(needing: "snapper"))
struct SnapperNumberingIntegrationTests {
    /// Two configs, `data` (carve deletes there) and `other` (snapper does), each with
    /// six snapshots and the comparison caches `snapper status` leaves.
    func withTwoConfigs(
        set: [String] = [], _ body: (DeletionDisk, _ ours: String, _ theirs: String) throws -> Void
    ) throws {
        try withDeletionDisk { disk in
            try Shell.check(["btrfs", "subvolume", "create", disk.mountpoint + "/other"])
            try withSnapperConfig(on: disk, source: "data", set: set) { ours in
                try withSnapperConfig(on: disk, source: "other", set: set) { theirs in
                    for config in [ours, theirs] {
                        for index in 1...6 {
                            try Shell.check(["snapper", "--no-dbus", "-c", config, "create", "-d", "n\(index)"])
                        }
                        for range in ["1..3", "2..6", "3..4", "4..5"] {
                            try Shell.check(["snapper", "--no-dbus", "-c", config, "status", range])
                        }
                    }
                    try body(disk, ours, theirs)
                }
            }
        }
    }

    /// Deletes `numbers` with carve in `ours` and with snapper in `theirs`.
    func delete(_ numbers: [String], _ disk: DeletionDisk, _ ours: String, _ theirs: String) throws {
        let result = try disk.carve(["snapshots", "delete", "--yes"] + numbers.map { "\(ours):\($0)" })
        #expect(result.status == 0, "\(result.stderr)")
        try Shell.check(["snapper", "--no-dbus", "-c", theirs, "delete"] + numbers)
    }

    @Test func deletingLeavesWhatThisSnappersOwnDeletionLeaves() throws {
        try withTwoConfigs { disk, ours, theirs in
            #expect(try directories(disk, "data").contains { $0.contains("filelist-") }, "snapper status left caches")
            for numbers in [["6", "2"], ["5"], ["3"]] { try delete(numbers, disk, ours, theirs) }
            #expect(try directories(disk, "data") == directories(disk, "other"))
            for config in [ours, theirs] {
                try Shell.check(["snapper", "--no-dbus", "-c", config, "create", "-d", "next"])
            }
            #expect(try highestNumber(ours) == highestNumber(theirs), "snapper gives both configs the same next number")
        }
    }

    @Test func uniqueNumbersKeepsTheDirectoryOfTheHighestSnapshot() throws {
        try withTwoConfigs(set: ["UNIQUE_NUMBERS=yes"]) { disk, ours, theirs in
            for numbers in [["6", "2"], ["5"], ["3"]] { try delete(numbers, disk, ours, theirs) }
            let left = try directories(disk, "data")
            // 6, then 5 were the highest snapshot when deleted: both stay, empty, as snapper
            // 0.13.1 and later keep them; 2 and 3 go, with every cache that names them.
            #expect(left.filter { $0.hasSuffix(": ") } == ["5: ", "6: "], "\(left)")
            #expect(
                !left.contains { $0.contains("2.") || $0.contains("3.") }
                    && !left.contains { $0.hasPrefix("2:") || $0.hasPrefix("3:") }, "\(left)")
            if try !snapperVersion().lexicographicallyPrecedes([0, 13, 1]) {
                #expect(try left == directories(disk, "other"))
            }
            try Shell.check(["snapper", "--no-dbus", "-c", ours, "create", "-d", "next"])
            #expect(try highestNumber(ours) == 7, "no number is given twice")
        }
    }

    /// Each `.snapshots/N` and what it holds.
    func directories(_ disk: DeletionDisk, _ source: String) throws -> [String] {
        let base = disk.mountpoint + "/\(source)/.snapshots"
        return try FileManager.default.contentsOfDirectory(atPath: base).sorted().map { name in
            name + ": "
                + (try FileManager.default.contentsOfDirectory(atPath: base + "/" + name)).sorted().joined(
                    separator: ",")
        }
    }

    func highestNumber(_ config: String) throws -> Int? {
        try Shell.check(["snapper", "--no-dbus", "-c", config, "--csvout", "list", "--columns", "number"])
            .split(separator: "\n").dropFirst().compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.max()
    }

    func snapperVersion() throws -> [Int] {
        let first = try Shell.check(["snapper", "--version"]).split(separator: "\n").first ?? ""
        return (first.split(separator: " ").last ?? "").split(separator: ".").compactMap { Int($0) }
    }
}
