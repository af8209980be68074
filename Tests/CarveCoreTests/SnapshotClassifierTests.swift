import CarveCore
import CarveTestSupport
import Foundation
import Testing

@Suite struct SnapshotClassifierTests {
    typealias F = SnapshotFixtures
    let utc = TimeZone(identifier: "UTC")!

    func raw(
        _ id: UInt64, _ path: String, parent: UInt64 = 5, parentUUID: SubvolumeUUID? = nil, readOnly: Bool = true,
        mounted: Bool = true
    ) -> Volume {
        Volume(
            id: id, parentID: parent, path: path, mountedPath: mounted ? "/mnt/" + path : nil, uuid: F.uuid(id),
            parentUUID: parentUUID, created: F.epoch, readOnly: readOnly, isSnapshot: false)
    }

    let info = """
        <?xml version="1.0"?>
        <snapshot><type>single</type><num>1</num><date>2026-11-01 00:00:00</date><description>first</description></snapshot>
        """

    func files(_ contents: [String: String], unreadable: Set<String> = []) -> SnapshotClassifier.FileReader {
        { path, _ in
            if unreadable.contains(path) { throw SnapperInfo.Failure(reason: "permission denied (EACCES)") }
            return contents[path].map { Array($0.utf8) }
        }
    }

    @Test func recognisesEachLayoutAndLeavesPlainSubvolumesOut() {
        let classifier = SnapshotClassifier(
            snapperDirectories: [.init(config: "data", topLevelPath: "data/.snapshots")], timeZone: utc,
            readFile: files([
                "/mnt/data/.snapshots/1/info.xml": info,
                "/mnt/timeshift-btrfs/snapshots/2026-11-01_12-00-01/info.json": #"{"created":"1793534401","tags":"D"}"#,
            ]))
        let input = [
            raw(256, "data", readOnly: false),
            raw(257, "data/.snapshots", parent: 256, readOnly: false),
            raw(258, "data/.snapshots/1/snapshot", parent: 257, parentUUID: F.uuid(256)),
            raw(259, "timeshift-btrfs/snapshots/2026-11-01_12-00-01/@", parentUUID: F.uuid(999)),
            raw(260, "btrbk/data.20261101T1200"),
            raw(261, "manual", parentUUID: F.uuid(256), readOnly: false),
            raw(262, "writable.20261101", readOnly: false),
        ]
        let (out, warnings) = classifier.classify(input)
        #expect(warnings.isEmpty)
        #expect(out.map(\.isSnapshot) == [false, false, true, true, true, true, false])
        #expect(out.map(\.metadata.manager) == [.plain, .plain, .snapper, .timeshift, .btrbk, .plain, .plain])
        #expect(
            out[2].metadata.config == "data" && out[2].metadata.number == 1 && out[2].metadata.description == "first")
        #expect(out[2].metadata.metadataPath == "/mnt/data/.snapshots/1")
        #expect(out[2].sourceID == 256 && out[2].sourcePath == "data")
        #expect(out[3].metadata.tags == ["D"] && out[3].metadata.name == "2026-11-01_12-00-01")
        #expect(out[3].sourceID == nil)
        #expect(out[4].metadata.name == "data.20261101T1200")
        #expect(out[4].metadata.created == Date(timeIntervalSince1970: 1_793_534_400))
        #expect(out[0].hasNestedSubvolumes && out[1].hasNestedSubvolumes && !out[2].hasNestedSubvolumes)
    }

    @Test func brokenMetadataLeavesThePlainSnapshotListedWithAWarningNamingTheFile() {
        let classifier = SnapshotClassifier(
            timeZone: utc,
            readFile: files(
                [
                    "/mnt/a/.snapshots/1/info.xml": "<snapshot><type>single</type>",
                    "/mnt/timeshift-btrfs/snapshots/2026-11-01_12-00-01/info.json": "{\"created\":",
                ], unreadable: ["/mnt/b/.snapshots/2/info.xml"]))
        let (out, warnings) = classifier.classify([
            raw(300, "a/.snapshots/1/snapshot", parentUUID: F.uuid(1)),
            raw(301, "timeshift-btrfs/snapshots/2026-11-01_12-00-01/@home", parentUUID: F.uuid(1)),
            raw(302, "b/.snapshots/2/snapshot", parentUUID: F.uuid(1)),
        ])
        #expect(out.map(\.metadata.manager) == [.plain, .plain, .plain])
        #expect(out.allSatisfy { $0.isSnapshot })
        #expect(warnings.count == 3)
        #expect(warnings[0].hasPrefix("cannot use /mnt/a/.snapshots/1/info.xml: not well-formed XML"))
        #expect(
            warnings[1].hasPrefix(
                "cannot use /mnt/timeshift-btrfs/snapshots/2026-11-01_12-00-01/info.json: not valid JSON"))
        #expect(
            warnings[2]
                == "cannot use /mnt/b/.snapshots/2/info.xml: permission denied (EACCES); the snapshot is listed as plain"
        )
    }

    @Test func unreachableSnapshotsKeepTheirLayoutWithoutReadingFiles() {
        let classifier = SnapshotClassifier(
            snapperDirectories: [.init(config: "root", topLevelPath: "@snapshots")], timeZone: utc,
            readFile: { path, _ in
                Issue.record("read \(path)"); return nil
            })
        let (out, warnings) = classifier.classify([
            raw(400, "@snapshots/7/snapshot", parentUUID: F.uuid(1), mounted: false),
            raw(401, "timeshift-btrfs/snapshots/2026-11-01_12-00-01/@", parentUUID: F.uuid(1), mounted: false),
        ])
        #expect(warnings.isEmpty)
        #expect(out[0].metadata.manager == .snapper && out[0].metadata.config == "root" && out[0].metadata.number == 7)
        #expect(out[1].metadata.manager == .timeshift)
        #expect(out[1].metadata.created == Date(timeIntervalSince1970: 1_793_534_401))
    }

    @Test func mismatchedNumberIsBroken() {
        let classifier = SnapshotClassifier(timeZone: utc, readFile: files(["/mnt/x/.snapshots/2/info.xml": info]))
        let (out, warnings) = classifier.classify([raw(500, "x/.snapshots/2/snapshot", parentUUID: F.uuid(1))])
        #expect(out[0].metadata.manager == .plain)
        #expect(
            warnings == [
                "cannot use /mnt/x/.snapshots/2/info.xml: it says number 1, the directory is 2; the snapshot is listed as plain"
            ])
    }

    /// `isPlain` is `== .plain` written out: each field changed alone makes both false.
    /// A field added to ManagerMetadata fails the count until `isPlain` and this list name it.
    @Test func isPlainIsEqualityWithPlain() {
        var variants: [ManagerMetadata] = []
        func changed(_ change: (inout ManagerMetadata) -> Void) {
            var metadata = ManagerMetadata.plain
            change(&metadata)
            variants.append(metadata)
        }
        changed { $0.manager = .snapper }
        changed { $0.config = "" }
        changed { $0.number = 0 }
        changed { $0.name = "" }
        changed { $0.type = "" }
        changed { $0.description = "" }
        changed { $0.cleanup = "" }
        changed { $0.preNumber = 0 }
        changed { $0.userdata = ["": ""] }
        changed { $0.tags = [""] }
        changed { $0.important = true }
        changed { $0.created = Date(timeIntervalSince1970: 0) }
        changed { $0.metadataPath = "" }
        changed { $0.warning = "" }
        changed { $0.uniqueNumbers = true }
        #expect(Mirror(reflecting: ManagerMetadata.plain).children.count == variants.count)
        #expect(ManagerMetadata.plain.isPlain)
        for variant in variants {
            #expect(variant != .plain)
            #expect(!variant.isPlain, "\(variant)")
        }
    }
}

@Suite struct MountedPathTests {
    let fs = Filesystem(
        uuid: "u", devices: ["/dev/x"],
        mounts: [
            FilesystemMount(mountpoint: "/", subvolumePath: "/@", subvolumeID: 256),
            FilesystemMount(mountpoint: "/home", subvolumePath: "/@home", subvolumeID: 257),
            FilesystemMount(mountpoint: "/mnt/top", subvolumePath: "/", subvolumeID: 5),
        ])

    @Test func choosesTheMostSpecificMount() {
        #expect(fs.mountedPath(ofTopLevelPath: "@home/.snapshots/1/snapshot") == "/home/.snapshots/1/snapshot")
        #expect(fs.mountedPath(ofTopLevelPath: "@/etc") == "/etc")
        #expect(fs.mountedPath(ofTopLevelPath: "@") == "/")
        #expect(fs.mountedPath(ofTopLevelPath: "@snapshots/3/snapshot") == "/mnt/top/@snapshots/3/snapshot")
        #expect(fs.mountedPath(ofTopLevelPath: "@homework") == "/mnt/top/@homework")
    }

    /// A subvolume mounted itself is named by its place in the filesystem when another mount reaches it.
    @Test func besideItsOwnMountsAMountedSubvolumeIsNamedByItsPlace() {
        #expect(fs.mountedPath(ofTopLevelPath: "@home", besideItsOwnMounts: true) == "/mnt/top/@home")
        #expect(
            fs.mountedPath(ofTopLevelPath: "@home/.snapshots/1/snapshot", besideItsOwnMounts: true)
                == "/home/.snapshots/1/snapshot")
        let alone = Filesystem(
            uuid: "u", devices: [],
            mounts: [FilesystemMount(mountpoint: "/srv/old", subvolumePath: "/snaps/s2", subvolumeID: 300)])
        #expect(alone.mountedPath(ofTopLevelPath: "snaps/s2", besideItsOwnMounts: true) == "/srv/old")
    }

    @Test func unreachableWithoutATopLevelMount() {
        let only = Filesystem(
            uuid: "u", devices: [],
            mounts: [FilesystemMount(mountpoint: "/srv", subvolumePath: "/@srv", subvolumeID: 300)])
        #expect(only.mountedPath(ofTopLevelPath: "@snaps/a") == nil)
        #expect(only.mountedPath(ofTopLevelPath: "@srv/x") == "/srv/x")
    }

    @Test func topLevelPathOfAMountedPath() {
        #expect(fs.topLevelPath(ofMountedPath: "/home/.snapshots") == "@home/.snapshots")
        #expect(fs.topLevelPath(ofMountedPath: "/") == "@")
        #expect(fs.topLevelPath(ofMountedPath: "/mnt/top/") == "")
        #expect(fs.topLevelPath(ofMountedPath: "/.snapshots") == "@/.snapshots")
    }
}

@Suite struct SnapshotDateTests {
    typealias F = SnapshotFixtures
    let utc = TimeZone(identifier: "UTC")!

    func classify(_ volumes: [Volume]) -> ([Volume], [String]) {
        SnapshotClassifier(timeZone: utc, readFile: { _, _ in nil }).classify(volumes)
    }

    func btrbk(_ id: UInt64, _ name: String, otime: Date, received: Bool = false) -> Volume {
        Volume(
            id: id, path: "snaps/" + name, uuid: F.uuid(id), receivedUUID: received ? F.uuid(id + 100) : nil,
            created: otime, isSnapshot: false)
    }

    @Test func theManagersDateIsTheDateAndOtimeStaysBesideIt() {
        let otime = CivilTime(year: 2026, month: 11, day: 20).date(in: utc)
        let (out, warnings) = classify([btrbk(300, "data.20261101T1200", otime: otime, received: true)])
        #expect(out[0].created == CivilTime(year: 2026, month: 11, day: 1, hour: 12).date(in: utc))
        #expect(out[0].otime == otime && out[0].dateSource == "btrbk")
        // Received: its otime is the day it was copied, no warning.
        #expect(warnings.isEmpty)
        // Classified twice, the date stays the manager's and otime the kernel's.
        let (again, _) = classify(out)
        #expect(again[0].created == out[0].created && again[0].otime == otime)
    }

    @Test func aManagersDateMoreThanADayFromOtimeIsAWarning() {
        let otime = CivilTime(year: 2026, month: 11, day: 20).date(in: utc)
        let (out, warnings) = classify([btrbk(300, "data.20261101T1200", otime: otime)])
        #expect(out[0].dateSource == "btrbk")
        #expect(
            warnings == [
                "snaps/data.20261101T1200: btrbk dates it 2026-11-01T12:00:00Z, the subvolume was created 2026-11-20T00:00:00Z; carve uses btrbk's date"
            ])
    }

    @Test func anImpossibleBtrbkDateIsPlainWithAWarningNeverAGuess() {
        let (out, warnings) = classify([
            btrbk(300, "data.20261345T9999", otime: F.epoch), btrbk(301, "notes.12345678x", otime: F.epoch),
        ])
        #expect(out[0].metadata.manager == .plain && out[0].created == F.epoch && out[0].dateSource == "otime")
        #expect(
            warnings == [
                "snaps/data.20261345T9999: the date in this btrbk-style name is impossible; the snapshot is listed as plain"
            ])
    }
}
