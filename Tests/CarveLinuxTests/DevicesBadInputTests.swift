import Foundation
import Testing
import CarveTestSupport

/// The built carve binary, next to the test bundle in the build directory.
enum CarveBinary {
    static var path: String {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return directory.appendingPathComponent("carve").path
    }

    /// A copy any user can run, for tests that run carve as nobody (the build
    /// directory or a scratch directory may not be reachable for other users).
    static func copy(into directory: String) throws -> String {
        let target = directory + "/carve"
        try FileManager.default.copyItem(atPath: path, toPath: target)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: target)
        return target
    }
}

/// Bad device paths given to the real binary: one line on stderr, nothing on stdout, and
/// lsblk's exit 32 (no named device found); a bad column is a usage error, 64.
@Suite struct DevicesBadInputTests {
    @Test func everyBadPathIsOneLineAndExit32() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: CarveBinary.path), "no carve binary at \(CarveBinary.path)")
        let directory = try Integration.makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/disk.img"
        try Data(count: 4096).write(to: URL(fileURLWithPath: file))
        let cases = [
            (file, "carve: \(file) is not a block device (it is a regular file)"),
            (directory, "carve: \(directory) is not a block device (it is a directory)"),
            ("/dev/null", "carve: /dev/null is not a block device (it is a character device)"),
            (directory + "/missing", "carve: \(directory)/missing: no such file or directory"),
        ]
        for (path, message) in cases {
            let result = try Shell.run([CarveBinary.path, "devices", path])
            #expect(result.status == 32, "\(path)")
            #expect(result.stdout.isEmpty, "\(path)")
            #expect(result.stderr == message + "\n", "\(path)")
        }
    }

    @Test func unknownColumnIsOneLineAndExit64() throws {
        let result = try Shell.run([CarveBinary.path, "devices", "--output", "NAME,NOPE"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("carve: unknown column 'NOPE' for --output"))
        #expect(result.stderr.filter { $0 == "\n" }.count == 1)
    }
}
