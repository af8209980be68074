@testable import CarveCLI
import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// Snapshot names whose bytes are not UTF-8 (#8): tables show each such byte as
/// `\xHH`, JSON shows U+FFFD and adds the exact bytes in `KEY_base64`, so two names
/// that differ only in those bytes never print the same.
@Suite struct NonUTF8NameTests {
    typealias F = SnapshotFixtures
    static let home = F.subvolume(256, path: "home")
    /// "snap" + 0xFF and "snap" + 0xFE: the same text once each byte becomes U+FFFD.
    static let latin1 = ByteText.decode(Array("snap".utf8) + [0xFF])
    static let other = ByteText.decode(Array("snap".utf8) + [0xFE])

    static func backend() -> FakeSnapshotBackend {
        let subvolumes = [
            home,
            F.snapshot(300, path: latin1, of: home, daysAgo: 3),
            F.snapshot(
                301, path: other, of: home, daysAgo: 2,
                metadata: ManagerMetadata(
                    manager: .timeshift, name: "n", description: ByteText.decode([0x61, 0xE9]),
                    tags: ["O", ByteText.decode([0xC3])])),
            F.snapshot(302, path: "plain", of: home, daysAgo: 1),
        ]
        return FakeSnapshotBackend([.init(filesystem: F.filesystem(), subvolumes: subvolumes)])
    }

    func list(_ arguments: [String]) -> RunResult {
        runCarve(["snapshots", "list"] + arguments) { captured in
            Services(
                devices: FakeDeviceSource(), snapshots: Self.backend(), clock: FixedClock(), output: captured,
                isRoot: true)
        }
    }

    @Test func tableShowsEachByteThatIsNotUTF8AsHex() {
        let result = list(["--output", "ID,PATH,DESCRIPTION,TAGS", "--sort", "ID"])
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                 ID PATH          DESCRIPTION TAGS
                300 /mnt/snap\\xff
                301 /mnt/snap\\xfe a\\xe9       O \\xc3
                302 /mnt/plain

                """)
    }

    @Test func jsonCarriesTheExactBytesInBase64() throws {
        for output in [[], ["--output", "ID,PATH,MOUNTPOINTS,TAGS,DESCRIPTION"]] {
            let result = list(["--json", "--sort", "ID"] + output)
            #expect(result.status == 0)
            // Valid UTF-8 JSON that any parser reads.
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let rows = try #require(object["snapshots"] as? [[String: Any]])
            #expect(rows[0]["path"] as? String == "/mnt/snap\u{FFFD}")
            #expect(rows[1]["path"] as? String == "/mnt/snap\u{FFFD}")
            #expect(rows[0]["path_base64"] as? String == Data(Array("/mnt/snap".utf8) + [0xFF]).base64EncodedString())
            #expect(rows[1]["path_base64"] as? String == Data(Array("/mnt/snap".utf8) + [0xFE]).base64EncodedString())
            #expect(rows[1]["description_base64"] as? String == Data([0x61, 0xE9]).base64EncodedString())
            let tags = try #require(rows[1]["tags_base64"] as? [Any])
            #expect(tags.count == 2 && tags[0] is NSNull && tags[1] as? String == Data([0xC3]).base64EncodedString())
            // A row whose names are UTF-8 keeps exactly the documented keys.
            #expect(!rows[2].keys.contains { $0.hasSuffix("_base64") })
            #expect(!result.stdout.unicodeScalars.contains { ByteText.carriedByte($0) != nil })
        }
    }

    @Test func jsonBase64FollowsItsKeyInTheFullListing() {
        let result = list(["--json", "--sort", "ID"])
        let members = [
            #""path": "/mnt/snap\#u{FFFD}","#, #""path_base64": "L21udC9zbmFw/w==","#,
            #""subvolume_path": "snap\#u{FFFD}","#, #""subvolume_path_base64": "c25hcP8=","#,
        ]
        #expect(result.stdout.contains(members.map { String(repeating: " ", count: 9) + $0 }.joined(separator: "\n")))
    }

    @Test func aPathArgumentWithSuchBytesNamesExactlyThatSnapshot() {
        let backend = Self.backend()
        let result = runCarve(["snapshots", "delete", "--yes", "/mnt/" + Self.other]) { captured in
            Services(
                devices: FakeDeviceSource(), snapshots: backend, clock: FixedClock(), output: captured, isRoot: true)
        }
        #expect(result.status == 0, "\(result.stderr)")
        let left = backend.filesystems[0].subvolumes.map(\.id)
        #expect(left == [256, 300, 302])
    }

    @Test func aGlobWithSuchABytePicksOnlyTheNamesHoldingIt() {
        let result = list(["--match", "*" + ByteText.decode([0xFE]), "--output", "ID"])
        #expect(result.status == 0)
        #expect(result.stdout == " ID\n301\n")
    }

    /// The one-line error rule holds whatever the name: it is escaped as in a table.
    @Test func anErrorNamingAnOddPathStaysOneLine() {
        let result = runCarve(["snapshots", "delete", "--yes", "/mnt/new\nline" + ByteText.decode([0xFF])]) {
            captured in
            Services(
                devices: FakeDeviceSource(), snapshots: Self.backend(), clock: FixedClock(), output: captured,
                isRoot: true)
        }
        #expect(result.status == 64)
        #expect(result.stderr == "carve: /mnt/new\\x0aline\\xff: no such file or directory\n")
    }

    @Test func base64IsRFC4648() {
        for length in 0..<8 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: 0xF9 &+ $0 &* 37) }
            #expect(ByteText.base64(of: ByteText.decode(bytes)) == Data(bytes).base64EncodedString())
        }
    }
}
