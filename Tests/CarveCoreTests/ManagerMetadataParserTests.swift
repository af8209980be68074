@testable import CarveCore
import Foundation
import Testing

@Suite struct SnapperInfoTests {
    let post = """
        <?xml version="1.0"?>
        <snapshot>
          <type>post</type>
          <num>12</num>
          <date>2026-11-01 12:00:30</date>
          <pre_num>11</pre_num>
          <description>zypp(zypper) &amp; &lt;friends&gt; &#233;</description>
          <cleanup>number</cleanup>
          <userdata>
            <key>important</key>
            <value>yes</value>
          </userdata>
          <userdata><key>note</key><value>a b</value></userdata>
        </snapshot>
        """

    @Test func readsEveryField() throws {
        let metadata = try SnapperInfo.parse(Array(post.utf8), config: "root")
        #expect(metadata.manager == .snapper)
        #expect(metadata.config == "root")
        #expect(metadata.number == 12)
        #expect(metadata.type == "post")
        #expect(metadata.preNumber == 11)
        #expect(metadata.description == "zypp(zypper) & <friends> é")
        #expect(metadata.cleanup == "number")
        #expect(metadata.userdata == ["important": "yes", "note": "a b"])
        #expect(metadata.important)
        #expect(metadata.created == Date(timeIntervalSince1970: 1_793_534_430))
    }

    @Test func minimalSingleSnapshotIsNotImportant() throws {
        let xml = "<snapshot><type>single</type><num>0</num><date>1970-01-01 00:00:00</date></snapshot>"
        let metadata = try SnapperInfo.parse(Array(xml.utf8))
        #expect(metadata.number == 0 && !metadata.important && metadata.description == nil && metadata.preNumber == nil)
        #expect(metadata.created == Date(timeIntervalSince1970: 0))
    }

    @Test(arguments: [
        ("", "not well-formed"), ("<snapshot>", "not well-formed"), ("<other/>", "root element"),
        ("<snapshot><type>single</type><num>x</num><date>2026-11-01 12:00:00</date></snapshot>", "<num>"),
        ("<snapshot><type>weird</type><num>1</num><date>2026-11-01 12:00:00</date></snapshot>", "<type>"),
        ("<snapshot><type>single</type><num>1</num><date>2026-13-01 12:00:00</date></snapshot>", "<date>"),
        ("<snapshot><type>single</type><num>1</num><date>2026-11-01</date></snapshot>", "<date>"),
        ("<snapshot><type>single</type><num>1</num></snapshot>", "<date>"),
        ("<snapshot><type>single</type></num></snapshot>", "not well-formed"),
        ("<!DOCTYPE x [<!ENTITY a \"b\">]><snapshot/>", "not well-formed"),
        ("<snapshot><type>single&bogus;</type></snapshot>", "not well-formed"),
        ("<snapshot></snapshot><snapshot></snapshot>", "not well-formed"),
        (
            "<snapshot><type>pre</type><num>1</num><date>2026-11-01 12:00:00</date><pre_num>-1</pre_num></snapshot>",
            "pre_num"
        ),
        (
            "<snapshot><type>pre</type><num>1</num><date>2026-11-01 12:00:00</date><userdata><value>v</value></userdata></snapshot>",
            "userdata"
        ),
    ])
    func rejectsMalformedFilesWithAReason(xml: String, reason: String) {
        #expect {
            try SnapperInfo.parse(Array(xml.utf8))
        } throws: { error in
            (error as? SnapperInfo.Failure)?.reason.contains(reason) == true
        }
    }

    @Test func hostileFilesFailFast() {
        let deep = String(repeating: "<a>", count: 100_000)
        #expect(throws: SnapperInfo.Failure.self) { try SnapperInfo.parse(Array(deep.utf8)) }
        let huge = [UInt8](repeating: 0x20, count: SnapperInfo.maximumSize + 1)
        #expect(throws: SnapperInfo.Failure(reason: "larger than 65536 bytes")) { try SnapperInfo.parse(huge) }
        let many = "<snapshot>" + String(repeating: "<x/>", count: 11_000) + "</snapshot>"
        #expect(throws: SnapperInfo.Failure.self) { try SnapperInfo.parse(Array(many.utf8)) }
        #expect(throws: SnapperInfo.Failure(reason: "not UTF-8")) {
            try SnapperInfo.parse([UInt8]([0xff, 0xfe, 0x3c]))
        }
    }
}

@Suite struct SnapperConfigTests {
    @Test func readsSubvolumeFromShellSyntax() throws {
        let text = """
            # subvolume to snapshot
            SUBVOLUME="/home"

            FSTYPE="btrfs"
            QGROUP=""
            ALLOW_USERS="a \\"b\\""  # trailing comment
            TIMELINE_CREATE=yes
            """
        let config = try SnapperConfig.parse(name: "home", text: text)
        #expect(config == SnapperConfig(name: "home", subvolume: "/home", fstype: "btrfs"))
        #expect(try SnapperConfig.parseAssignments(text)["ALLOW_USERS"] == "a \"b\"")
        #expect(try SnapperConfig.parseAssignments(text)["TIMELINE_CREATE"] == "yes")
    }

    /// Only "yes" turns UNIQUE_NUMBERS on, as snapper reads booleans; a config without
    /// the key comes from a snapper before 0.13.1, which reuses numbers.
    @Test(arguments: [
        ("UNIQUE_NUMBERS=\"yes\"", true), ("UNIQUE_NUMBERS=yes", true), ("UNIQUE_NUMBERS=\"no\"", false),
        ("UNIQUE_NUMBERS=\"YES\"", false), ("UNIQUE_NUMBERS=\"\"", false), ("", false),
    ])
    func uniqueNumbersIsYesOnly(line: String, unique: Bool) throws {
        let config = try SnapperConfig.parse(name: "root", text: "SUBVOLUME=\"/\"\n\(line)\n")
        #expect(config.uniqueNumbers == unique)
    }

    @Test func readsConfigNamesFromSysconfig() throws {
        #expect(
            try SnapperConfig.configNames(fromSysconfig: "## Path: System\nSNAPPER_CONFIGS=\"root home\"\n") == [
                "root", "home",
            ])
        #expect(try SnapperConfig.configNames(fromSysconfig: "SNAPPER_CONFIGS=\"\"\n") == [])
        #expect(try SnapperConfig.configNames(fromSysconfig: "# nothing\n") == [])
    }

    @Test(arguments: [
        ("FSTYPE=\"btrfs\"", "no SUBVOLUME"), ("SUBVOLUME=\"home\"", "not an absolute path"),
        ("SUBVOLUME=\"/home", "unclosed quote"), ("SUBVOLUME \"/home\"", "not KEY"),
        ("SUB-VOLUME=\"/\"", "invalid key"), ("SUBVOLUME=\"/\" extra", "after the closing quote"),
        ("SUBVOLUME=\"/\\", "escape"),
    ])
    func rejectsMalformedConfigs(text: String, reason: String) {
        #expect {
            try SnapperConfig.parse(name: "x", text: text)
        } throws: { error in
            (error as? SnapperConfig.Failure)?.reason.contains(reason) == true
        }
    }
}

@Suite struct TimeshiftInfoTests {
    @Test func readsCreatedTagsAndComments() throws {
        let json =
            #"{"name":"2026-11-01_12-00-01","created":"1793534401","sys-uuid":"x","tags":"O D","comments":"before upgrade"}"#
        let metadata = try TimeshiftInfo.parse(Array(json.utf8), name: "2026-11-01_12-00-01")
        #expect(metadata.manager == .timeshift)
        #expect(metadata.name == "2026-11-01_12-00-01")
        #expect(metadata.created == Date(timeIntervalSince1970: 1_793_534_401))
        #expect(metadata.tags == ["O", "D"])
        #expect(metadata.description == "before upgrade")
        let numeric = try TimeshiftInfo.parse(Array(#"{"created":1793534401,"comments":""}"#.utf8), name: "n")
        #expect(numeric.description == nil && numeric.tags.isEmpty)
    }

    @Test(arguments: [
        ("", "not valid JSON"), ("{\"created\":", "not valid JSON"), ("[1]", "not a JSON object"),
        ("{}", "no \"created\""), ("{\"created\":\"yesterday\"}", "not Unix seconds"),
    ])
    func rejectsMalformedFiles(json: String, reason: String) {
        #expect {
            try TimeshiftInfo.parse(Array(json.utf8), name: "n")
        } throws: { error in
            (error as? TimeshiftInfo.Failure)?.reason.contains(reason) == true
        }
    }

    @Test func datesFromDirectoryNames() {
        let utc = TimeZone(identifier: "UTC")!
        #expect(
            TimeshiftInfo.date(fromName: "2026-11-01_12-00-01", timeZone: utc)
                == Date(timeIntervalSince1970: 1_793_534_401))
        #expect(TimeshiftInfo.date(fromName: "2026-11-01_12-00", timeZone: utc) == nil)
        #expect(TimeshiftInfo.date(fromName: "2026-02-30_12-00-00", timeZone: utc) == nil)
    }
}

@Suite struct BtrbkNameTests {
    let utc = TimeZone(identifier: "UTC")!

    @Test(arguments: [
        ("home.20261101", "home", 1_793_491_200.0), ("home.20261101T1200", "home", 1_793_534_400),
        ("home.20261101T120030", "home", 1_793_534_430), ("home.20261101T1200_2", "home", 1_793_534_400),
        ("root.fs.20261101", "root.fs", 1_793_491_200), ("home.20261101T120000+0200", "home", 1_793_527_200),
    ])
    func readsSubvolumeAndTime(name: String, subvolume: String, seconds: Double) throws {
        let parsed = try #require(BtrbkName.parse(name, timeZone: utc))
        #expect(parsed.subvolume == subvolume)
        #expect(parsed.created == Date(timeIntervalSince1970: seconds))
    }

    @Test(arguments: [
        "home", "home.2026110", "home.20261301", "home.20261101T12", "home.20261101_", "home.20261101_x",
        ".20261101", "home.20261101T1260", "home.20261101X1200", "home.2026-11-01",
    ])
    func rejectsOtherNames(name: String) {
        #expect(BtrbkName.parse(name, timeZone: utc) == nil)
    }
}
