import CarveCore
import Testing

@Suite struct MountInfoTests {
    @Test func parsesABtrfsSubvolumeMountWithOptionalFields() throws {
        let line =
            "112 29 0:52 /@home /tmp/carve-test-x/mnt0 rw,relatime shared:60 master:1 - btrfs /dev/loop3p2 rw,space_cache=v2,subvolid=256,subvol=/@home"
        let entry = try #require(try MountInfo.parse(line).first)
        #expect(entry.mountID == 112 && entry.parentID == 29)
        #expect(entry.number == DeviceNumber(major: 0, minor: 52))
        #expect(entry.root == "/@home" && entry.mountpoint == "/tmp/carve-test-x/mnt0")
        #expect(entry.fsType == "btrfs" && entry.source == "/dev/loop3p2")
        #expect(entry.superOption("subvolid") == "256" && entry.superOption("subvol") == "/@home")
        #expect(!entry.isReadOnly)
    }

    @Test func superOptionsMatchTheWholeNameBeforeTheEqualsSign() {
        let entry = MountEntry(
            mountID: 1, parentID: 0, number: DeviceNumber(major: 0, minor: 1), root: "/", mountpoint: "/m",
            options: [], fsType: "btrfs", source: "/dev/x",
            superOptions: ["subvolid", "subvolidx=1", "subvolid=", "subvol=/a=b", "subvolid=300", "é=1", "label=é"])
        #expect(entry.superOption("subvolid") == "")
        #expect(entry.superOption("subvol") == "/a=b")
        #expect(entry.superOption("subvolidx") == "1")
        #expect(entry.superOption("é") == "1" && entry.superOption("label") == "é")
        #expect(entry.superOption("sub") == nil && entry.superOption("") == nil && entry.superOption("absent") == nil)
    }

    @Test func decodesOctalEscapesInPaths() throws {
        let line = #"40 29 7:0 / /mnt/with\040space\011tab\012newline\134back rw - ext4 /dev/loop0 rw"#
        let entry = try #require(try MountInfo.parse(line).first)
        #expect(entry.mountpoint == "/mnt/with space\ttab\nnewline\\back")
    }

    @Test(arguments: [#"\04"#, #"a\999b"#, #"\"#, #"x\0"#, #"\400"#])
    func leavesIncompleteOrInvalidEscapesAsTheyAre(field: String) {
        #expect(MountInfo.unescape(field) == field)
    }

    @Test func keepsBytesThatAreNotUTF8Exactly() throws {
        #expect(ByteText.bytes(of: MountInfo.unescape(#"/mnt/\377x"#)) == Array("/mnt/".utf8) + [0xFF, 0x78])
        // The kernel escapes only space, tab, newline and backslash: other bytes come raw.
        let raw = Array("36 25 0:52 / /mnt/".utf8) + [0xFE, 0x5C] + Array("040b rw - btrfs /dev/loop1 rw".utf8)
        let entry = try #require(try MountInfo.parse(ByteText.decode(raw)).first)
        #expect(ByteText.bytes(of: entry.mountpoint) == Array("/mnt/".utf8) + [0xFE, 0x20, 0x62])
    }

    @Test(arguments: [
        "", "1 2 3", "x 29 0:52 / /m rw - btrfs /dev/a rw", "1 2 0:52 / /m rw shared:1 btrfs /dev/a rw",
        "1 2 052 / /m rw - btrfs /dev/a rw", "1 2 0:5x / /m rw - btrfs /dev/a rw", "1 2 0:1 / /m rw - btrfs",
    ])
    func rejectsMalformedLinesNamingTheLine(line: String) {
        if line.isEmpty {
            #expect((try? MountInfo.parse(line))?.isEmpty == true)
            return
        }
        #expect(throws: ParseError.self) { try MountInfo.parse(line) }
    }

    @Test func readsEveryLineOfARealTable() throws {
        let table = """
            22 1 254:0 / / rw,relatime - ext4 /dev/vda rw
            23 22 0:5 / /dev rw,nosuid - devtmpfs udev rw,size=10240k
            """
        #expect(try MountInfo.parse(table).map(\.mountpoint) == ["/", "/dev"])
    }
}
