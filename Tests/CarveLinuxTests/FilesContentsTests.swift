@testable import CarveLinux
import CarveCore
import CarveTestSupport
import Foundation
import Glibc
import Testing

/// A whole file read, with or without the size fstat gave: a hint too small (the file
/// grew), too large (it shrank) or none gives the same bytes.
@Suite struct FilesContentsTests {
    @Test(arguments: [0, 1, 65_535, 65_536, 65_537, 200_000])
    func everyHintGivesTheWholeFile(size: Int) throws {
        let path = try Integration.makeScratchDirectory() + "/file"
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        for hint in Set([0, 1, size / 2, size, size + 1, size * 2 + 65_536]) {
            #expect(try Files.contents(of: fd, sizeHint: hint, "read") == bytes, "hint \(hint)")
        }
        #expect(try Files.contents(of: fd, "read") == bytes)
    }

    @Test func aFailedReadIsReportedWithItsCall() {
        #expect(throws: SystemCallError.self) { try Files.contents(of: -1, sizeHint: 16, "cannot read it") }
        #expect(throws: SystemCallError.self) { try Files.contents(of: -1, "cannot read it") }
    }
}
