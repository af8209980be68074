import CarveCore
import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// libfdisk's view of real loop devices, compared with `sfdisk -J` and `sfdisk -F` on the same device.
@Suite(.serialized, .integration())
struct FdiskPartitionTableReaderTests {
    /// The table as `sfdisk -J` prints it.
    struct Reference {
        var label: String
        var firstLBA: UInt64?
        var lastLBA: UInt64?
        var sectorSize: UInt64
        var partitions: [PartitionEntry]
    }

    static func reference(_ device: String) throws -> Reference {
        let json = try Shell.check(["sfdisk", "-J", device])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let table = try #require(root["partitiontable"] as? [String: Any])
        func number(_ object: [String: Any], _ key: String) -> UInt64? { (object[key] as? NSNumber)?.uint64Value }
        let partitions = (table["partitions"] as? [[String: Any]] ?? []).map { entry in
            let node = entry["node"] as? String ?? ""
            return PartitionEntry(
                number: Int(node.reversed().prefix { $0.isNumber }.reversed().map(String.init).joined()) ?? 0,
                start: number(entry, "start") ?? 0, size: number(entry, "size") ?? 0,
                type: entry["type"] as? String ?? "", name: entry["name"] as? String
            )
        }
        return Reference(
            label: table["label"] as? String ?? "", firstLBA: number(table, "firstlba"),
            lastLBA: number(table, "lastlba"),
            sectorSize: number(table, "sectorsize") ?? 0, partitions: partitions
        )
    }

    /// The free gaps as `sfdisk -F` lists them: (start, sectors).
    static func referenceGaps(_ device: String) throws -> [FreeGap] {
        let lines = try Shell.check(["sfdisk", "-F", device]).split(separator: "\n")
        guard let header = lines.firstIndex(where: { $0.hasPrefix("Start") || $0.contains(" Start ") }) else {
            return []
        }
        return lines[(header + 1)...].compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 3, let start = UInt64(fields[0]), let sectors = UInt64(fields[2]) else { return nil }
            return FreeGap(start: start, size: sectors)
        }
    }

    @Test func gptWithAGapBetweenPartitionsMatchesSfdisk() throws {
        let script = "label: gpt\nsize=20MiB, type=L, name=\"data one\"\nstart=65536, size=10MiB, type=S\n"
        try withLoopDisk(size: "100M", sfdisk: script) { disk in
            let table = try #require(try FdiskPartitionTableReader().table(ofDisk: disk.device))
            let reference = try Self.reference(disk.device)
            #expect(table.label.rawValue == reference.label)
            #expect(table.sectorSize == reference.sectorSize)
            #expect(table.firstUsableLBA == reference.firstLBA)
            #expect(table.lastUsableLBA == reference.lastLBA)
            #expect(table.lastUsableLBA == table.totalSectors - 34) // the backup GPT's 33 sectors and the backup header
            #expect(table.grain == 1 << 20)
            #expect(table.partitions == reference.partitions)
            #expect(table.partitions.first?.name == "data one")
            #expect(table.freeGaps == (try Self.referenceGaps(disk.device)))
            #expect(table.freeGaps.count == 2)
            #expect(table.partition(following: table.partitions[0]) == table.partitions[1])
            #expect(table.partition(following: table.partitions[1]) == nil)
        }
    }

    @Test func dosPartitionsMatchSfdisk() throws {
        try withLoopDisk(size: "100M", sfdisk: "label: dos\nsize=20MiB, type=83\nsize=10MiB, type=82\n") { disk in
            let table = try #require(try FdiskPartitionTableReader().table(ofDisk: disk.device))
            let reference = try Self.reference(disk.device)
            #expect(table.label == .dos)
            #expect(table.partitions == reference.partitions)
            #expect(table.partitions.map(\.type) == ["83", "82"])
            #expect(table.freeGaps == (try Self.referenceGaps(disk.device)))
            #expect(table.lastUsableLBA == table.totalSectors - 1)
        }
    }

    @Test func aDeviceWithoutATableHasNone() throws {
        try withLoopDisk(size: "20M") { disk in
            let table = try FdiskPartitionTableReader().table(ofDisk: disk.device)
            #expect(table == nil)
        }
    }

    @Test func aMissingDeviceNamesTheCall() throws {
        let error = #expect(throws: SystemCallError.self) {
            try FdiskPartitionTableReader().table(ofDisk: "/dev/carve-no-such-disk")
        }
        #expect(error?.call == "fdisk_assign_device")
        #expect(error?.errno == 2)
    }
}
