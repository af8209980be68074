import Foundation

/// The device tests' machine, made of real loop devices: a GPT disk holding ext4
/// (labelled "my data", with a space), btrfs, vfat and swap partitions, and a
/// whole-disk xfs loop device. Reusable by any test that needs real filesystems.
public final class FilesystemsFixture: @unchecked Sendable {
    public static let ext4Label = "my data"
    /// Partition sizes in MiB, in table order: ext4, btrfs, vfat, swap.
    public static let partitionScript = "label: gpt\n,256M\n,300M\n,128M\n,64M\n"

    public let gpt: LoopDisk
    public let xfs: LoopDisk

    public var ext4: String { gpt.partition(1) }
    public var btrfs: String { gpt.partition(2) }
    public var vfat: String { gpt.partition(3) }
    public var swap: String { gpt.partition(4) }
    /// Every node the fixture made: the GPT disk, its four partitions, the xfs disk.
    public var nodes: [String] { [gpt.device, ext4, btrfs, vfat, swap, xfs.device] }

    /// Makes both loop devices and their filesystems; on failure, removes what it made.
    public init() throws {
        gpt = try LoopDisk(size: "1G", sfdisk: FilesystemsFixture.partitionScript)
        do {
            xfs = try LoopDisk(size: "320M")
        } catch {
            gpt.cleanup()
            throw error
        }
        do {
            try Shell.check(["mkfs.ext4", "-q", "-F", "-L", FilesystemsFixture.ext4Label, gpt.partition(1)])
            try Shell.check(["mkfs.btrfs", "-q", "-f", "-L", "pool", gpt.partition(2)])
            try Shell.check(["mkfs.vfat", "-n", "EFI", gpt.partition(3)])
            try Shell.check(["mkswap", "-L", "swp", gpt.partition(4)])
            try Shell.check(["mkfs.xfs", "-q", "-f", "-L", "whole", xfs.device])
            // A running udevd rewrites each record once mkfs closes the device: until
            // then a record says "no filesystem", which carve, like lsblk, would trust.
            Udevd.settle([gpt.device, xfs.device] + (1...4).map(gpt.partition))
        } catch {
            cleanup()
            throw error
        }
    }

    public func cleanup() {
        xfs.cleanup()
        gpt.cleanup()
    }

    deinit { cleanup() }
}

/// Runs `body` with the fixture and removes every loop device and mount afterwards.
public func withFilesystemsFixture<T>(_ body: (FilesystemsFixture) throws -> T) throws -> T {
    let fixture = try FilesystemsFixture()
    defer { fixture.cleanup() }
    return try body(fixture)
}

/// The reference tools' view of a device, for comparing carve's with.
public enum Reference {
    /// `blkid -p -o export NODE` as a dictionary, values unescaped (blkid writes `my\ data`).
    /// Empty when blkid finds nothing (exit 2).
    public static func blkid(_ node: String) throws -> [String: String] {
        let result = try Shell.run(["blkid", "-p", "-o", "export", node])
        guard result.status == 0 else {
            if result.status == 2 { return [:] }
            throw Shell.Failure(command: ["blkid", "-p", "-o", "export", node], result: result)
        }
        var values: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            var value = ""
            var escaped = false
            for character in line[line.index(after: equals)...] {
                if !escaped && character == "\\" { escaped = true; continue }
                value.append(character)
                escaped = false
            }
            values[String(line[..<equals])] = value
        }
        return values
    }

    /// `lsblk -J -b -o COLUMNS NODES...` flattened: each device's JSON object by name
    /// (values as JSONSerialization gives them: NSNull, String, NSNumber, arrays).
    public static func lsblk(_ nodes: [String], columns: [String]) throws -> [String: [String: Any]] {
        let text = try Shell.check(["lsblk", "-J", "-b", "-o", columns.joined(separator: ",")] + nodes)
        return try flattenedJSON(text)
    }

    /// A `{"blockdevices": [...]}` document (lsblk's or carve's) flattened by "name".
    public static func flattenedJSON(_ text: String) throws -> [String: [String: Any]] {
        guard let root = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let devices = root["blockdevices"] as? [[String: Any]]
        else { throw Shell.Failure(command: ["parse JSON"], result: .init(status: 1, stdout: text, stderr: "")) }
        var byName: [String: [String: Any]] = [:]
        func visit(_ device: [String: Any]) {
            if let name = device["name"] as? String { byName[name] = device }
            for child in device["children"] as? [[String: Any]] ?? [] { visit(child) }
        }
        devices.forEach(visit)
        return byName
    }
}
