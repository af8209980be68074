@testable import CarveLinux
import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// Reading managers' files without trusting them, and snapper's configs under a root prefix.
@Suite struct MetadataFileTests {
    /// snapper's comparison caches are `filelist-N.txt` and `filelist-N.txt.gz`; nothing else.
    @Test(
        arguments: [
            ("filelist-12.txt", 12), ("filelist-12.txt.gz", 12), ("filelist-0.txt", 0), ("filelist-.txt", nil),
            ("filelist-1x.txt", nil), ("filelist-12.gz", nil), ("filelist-12.txt.gz.gz", nil), ("info.xml", nil),
            ("filelist-12.txt ", nil), ("filelist--1.txt", nil), ("filelist-99999999999999999999.txt", nil),
        ] as [(String, UInt64?)])
    func snapperFilelistNames(name: String, number: UInt64?) {
        #expect(SnapperFilelists.cachedNumber(name) == number)
    }

    let directory: String
    init() throws { directory = try Integration.makeScratchDirectory() }

    func write(_ path: String, _ text: String) throws {
        let full = directory + "/" + path
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: full))
    }

    @Test func readsAtMostTheLimitAndNilWhenMissing() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try write("info.xml", String(repeating: "x", count: 10_000))
        #expect(try MetadataFile.read(directory + "/info.xml", limit: 100)?.count == 100)
        #expect(try MetadataFile.read(directory + "/info.xml", limit: 20_000)?.count == 10_000)
        #expect(try MetadataFile.read(directory + "/missing.xml", limit: 100) == nil)
        #expect(try MetadataFile.read(directory + "/missing/info.xml", limit: 100) == nil)
    }

    @Test func refusesFifosSymlinksAndDirectoriesWithoutHanging() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/fifo"
        #expect(mkfifo(fifo, 0o644) == 0)
        #expect { try MetadataFile.read(fifo, limit: 100) } throws: { "\($0)" == "\(fifo) is not a regular file" }
        try write("real.json", "{}")
        try FileManager.default.createSymbolicLink(
            atPath: directory + "/link.json", withDestinationPath: directory + "/real.json")
        #expect { try MetadataFile.read(directory + "/link.json", limit: 100) } throws: {
            ($0 as? SystemCallError)?.call == "open" && ($0 as? SystemCallError)?.errno == ELOOP
        }
        #expect { try MetadataFile.read(directory, limit: 100) } throws: { "\($0)".hasSuffix("is not a regular file") }
    }

    @Test func snapperConfigsFromSysconfigAndTheConfigDirectory() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try write("etc/default/snapper", "SNAPPER_CONFIGS=\"root gone\"\n")
        try write("etc/snapper/configs/root", "SUBVOLUME=\"/\"\nFSTYPE=\"btrfs\"\n")
        try write("etc/snapper/configs/home", "# not listed, still read\nSUBVOLUME=\"/home\"\n")
        try write("etc/snapper/configs/broken", "SUBVOLUME=\"/srv\n")
        try write("etc/snapper/configs/.hidden", "SUBVOLUME=\"/x\"\n")
        let (configs, warnings) = SnapperConfigFiles(host: HostRoot(directory)).load()
        #expect(
            configs == [
                SnapperConfig(name: "root", subvolume: "/", fstype: "btrfs"),
                SnapperConfig(name: "home", subvolume: "/home"),
            ])
        #expect(
            warnings == [
                "snapper config gone is listed in SNAPPER_CONFIGS but \(directory)/etc/snapper/configs/gone does not exist",
                "cannot use snapper config \(directory)/etc/snapper/configs/broken: line 1 has an unclosed quote",
            ])
    }

    @Test func noSnapperAtAllIsNoConfigAndNoWarning() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (configs, warnings) = SnapperConfigFiles(host: HostRoot(directory)).load()
        #expect(configs.isEmpty && warnings.isEmpty)
    }
}
