@testable import CarveLinux
import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// `carve devices --dump DIR` as root: DIR is made (or must be empty; else exit 64 and
/// nothing written), and nothing is written through a symlink inside it, checked on
/// real directories with a victim directory and file that a planted symlink points to.
@Suite struct DeviceDumpDirectoryTests {
    func scratch() throws -> String { try Integration.makeScratchDirectory() }

    @Test func aNonEmptyDirectoryASymlinkOrAFileIsBadInputAndNothingIsWritten() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/full/keep", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/empty", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: root + "/empty")
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/file"))
        let cases = [
            ("full", "--dump \(root)/full: not empty; a dump goes into a new or empty directory"),
            ("link", "--dump \(root)/link: a symlink, not written to"),
            ("file", "--dump \(root)/file: not a directory, not written to"),
            ("missing/dump", "--dump \(root)/missing/dump: no such directory \(root)/missing"),
        ]
        for (name, message) in cases {
            let result = try Shell.run([CarveBinary.path, "devices", "--dump", root + "/" + name])
            #expect(result.status == 64, "\(name): \(result.stderr)")
            #expect(result.stderr == "carve: \(message)\n")
            #expect(result.stdout.isEmpty)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/full") == ["keep"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/empty").isEmpty)
        #expect(!FileManager.default.fileExists(atPath: root + "/missing"))
    }

    /// An empty directory is taken as it is; a new one is made, mode 0755.
    @Test func anEmptyDirectoryOrANewOneIsWrittenTo() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/empty", withIntermediateDirectories: true)
        for name in ["empty", "new"] {
            let result = try Shell.run([CarveBinary.path, "devices", "--dump", root + "/" + name])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect(FileManager.default.fileExists(atPath: root + "/\(name)/proc/self/mountinfo"))
        }
        let mode = try FileManager.default.attributesOfItem(atPath: root + "/new")[.posixPermissions] as? Int
        #expect(mode == 0o755)
    }

    /// What someone plants in DIR while a dump runs (a directory or a file replaced by a
    /// symlink) stops the dump; the victim behind the link is never written.
    @Test func aSymlinkPlantedInsideIsNeverFollowed() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let victim = root + "/victim"
        try FileManager.default.createDirectory(atPath: victim, withIntermediateDirectories: true)
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: victim + "/size"))
        let dump = try DumpDirectory(making: root + "/dump")
        try FileManager.default.createSymbolicLink(atPath: root + "/dump/sys", withDestinationPath: victim)
        #expect(throws: SystemCallError.self) { try dump.writeFile("/sys/size", Array("0\n".utf8)) }
        #expect(throws: SystemCallError.self) { try dump.makeDirectories("/sys/devices") }
        try dump.makeDirectories("/dev")
        try FileManager.default.createSymbolicLink(
            atPath: root + "/dump/dev/loop0", withDestinationPath: victim + "/size")
        let refused = #expect(throws: SystemCallError.self) { try dump.writeFile("/dev/loop0", Array("E:1\n".utf8)) }
        #expect(refused?.errno == ELOOP)
        // A link of the dump's own replaces what is there, pointing where the dump says.
        try dump.link("/dev/loop0", to: "../elsewhere")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: root + "/dump/dev/loop0") == "../elsewhere")
        #expect(try String(contentsOfFile: victim + "/size", encoding: .utf8) == "precious\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: victim) == ["size"])
    }
}
