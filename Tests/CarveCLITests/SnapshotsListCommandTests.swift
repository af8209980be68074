@testable import CarveCLI
import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// `carve snapshots list` in-process on the fake backend, in UTC at 2026-11-01T00:00Z.
@Suite struct SnapshotsListCommandTests {
    typealias F = SnapshotFixtures
    static let home = F.subvolume(256, path: "@home")
    static let root = F.subvolume(257, path: "@", mountedAt: nil)

    static func backend(quotaProblem: String? = nil, warnings: [String] = []) -> FakeSnapshotBackend {
        var rootMounted = root
        rootMounted.mountedPath = "/"
        let subvolumes = [
            home, rootMounted,
            F.snapshot(
                300, path: "snaps/home.20261001", of: home, daysAgo: 31,
                metadata: ManagerMetadata(manager: .btrbk, name: "home.20261001"), exclusive: 10 << 20,
                referenced: 1 << 30),
            F.snapshot(
                301, path: "@/.snapshots/1/snapshot", of: rootMounted, daysAgo: 40,
                metadata: ManagerMetadata(
                    manager: .snapper, config: "root", number: 1, type: "single",
                    description: "first root filesystem", important: true),
                exclusive: 1 << 20, referenced: 2 << 30),
            F.snapshot(
                302, path: "timeshift-btrfs/snapshots/2026-10-20_10-00-00/@", of: rootMounted, daysAgo: 12,
                metadata: ManagerMetadata(
                    manager: .timeshift, name: "2026-10-20_10-00-00", description: "before\tupgrade",
                    tags: ["O", "D"]),
                mountedAt: nil, exclusive: 300 << 20, referenced: 2 << 30),
            F.snapshot(303, path: "manual", of: home, daysAgo: 2, exclusive: 4096, referenced: 1 << 30),
        ]
        return FakeSnapshotBackend([
            .init(filesystem: F.filesystem(), subvolumes: subvolumes, quotaProblem: quotaProblem, warnings: warnings)
        ])
    }

    func list(_ arguments: [String], backend: FakeSnapshotBackend = backend(), isRoot: Bool = true) -> RunResult {
        runCarve(["snapshots", "list"] + arguments) { captured in
            Services(
                devices: FakeDeviceSource(), snapshots: backend, clock: FixedClock(), output: captured, isRoot: isRoot)
        }
    }

    @Test func tableIsSortedByCreationWithManagersSourcesAndSizes() {
        let result = list([])
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                 ID CREATED          MANAGER                NUMBER SOURCE     PATH                                                                    EXCL RFER DESCRIPTION
                301 2026-09-22 00:00 snapper                     1 /          /mnt/@/.snapshots/1/snapshot                                              1M   2G first root filesystem
                300 2026-10-01 00:00 btrbk           home.20261001 /mnt/@home /mnt/snaps/home.20261001                                                 10M   1G
                302 2026-10-20 00:00 timeshift 2026-10-20_10-00-00 /          <FS_TREE>/timeshift-btrfs/snapshots/2026-10-20_10-00-00/@ (not mounted) 300M   2G before\\x09upgrade
                303 2026-10-30 00:00 plain                         /mnt/@home /mnt/manual                                                               4K   1G

                """)
        #expect(result.stderr == "carve: 4 snapshots, 311M exclusive in total (together they may free more)\n")
    }

    @Test func jsonHasOneObjectPerSnapshotWithTheDocumentedKeys() throws {
        let result = list(["--json", "--sort", "ID"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let snapshots = try #require(object["snapshots"] as? [[String: Any]])
        #expect(snapshots.map { $0["id"] as? Int } == [300, 301, 302, 303])
        for key in [
            "id", "path", "filesystem", "fsuuid", "uuid", "parent_uuid", "source", "created", "readonly", "manager",
            "config", "number", "description", "important", "exclusive", "referenced", "reachable",
        ] {
            #expect(snapshots.allSatisfy { $0.keys.contains(key) }, "missing \(key)")
        }
        let snapper = snapshots[1]
        #expect(snapper["manager"] as? String == "snapper" && snapper["config"] as? String == "root")
        #expect(snapper["number"] as? Int == 1 && snapper["important"] as? Bool == true)
        #expect(snapper["created"] as? String == "2026-09-22T00:00:00Z")
        #expect(snapper["exclusive"] as? Int == 1 << 20 && snapper["source"] as? String == "/")
        let timeshift = snapshots[2]
        #expect(timeshift["reachable"] as? Bool == false && timeshift["number"] is NSNull)
        #expect(timeshift["path"] as? String == "<FS_TREE>/timeshift-btrfs/snapshots/2026-10-20_10-00-00/@")
        #expect(timeshift["description"] as? String == "before\tupgrade")
        #expect(snapshots[0]["config"] is NSNull && snapshots[0]["fsuuid"] as? String == F.filesystem().uuid)
    }

    @Test func createdCarriesTheLocalOffset() throws {
        let result = runCarve(["snapshots", "list", "--json", "--output", "ID,CREATED", "--sort", "ID"]) { captured in
            Services(
                devices: FakeDeviceSource(), snapshots: Self.backend(),
                clock: FixedClock(timeZone: TimeZone(identifier: "Asia/Kolkata")!), output: captured, isRoot: true)
        }
        #expect(result.stdout.contains("\"created\": \"2026-10-01T05:30:00+05:30\""))
        #expect(!result.stdout.contains("\"path\""))
    }

    @Test func quotasOffGiveUnknownSizesAndSayWhy() {
        let result = list(
            ["--output", "ID,EXCL"], backend: Self.backend(quotaProblem: "quotas are off on /mnt: sizes unknown"))
        #expect(result.status == 0)
        #expect(result.stdout == " ID EXCL\n301    -\n300    -\n302    -\n303    -\n")
        #expect(
            result.stderr
                == "carve: quotas are off on /mnt: sizes unknown\ncarve: 4 snapshots; exclusive sizes unknown\n")
        let json = list(["--json", "--output", "ID,EXCL,RFER"], backend: Self.backend(quotaProblem: "off"))
        #expect(json.stdout.contains("\"exclusive\": null,\n         \"referenced\": null"))
    }

    @Test func sizesNoneAsksTheBackendForNoSizes() {
        let result = list(["--sizes", "none", "--output", "ID,RFER", "--bytes"])
        #expect(result.stdout.hasSuffix("303    -\n"))
        #expect(!result.stderr.contains("quotas"))
    }

    @Test func bytesPrintsExactNumbers() {
        let result = list(["--output", "ID,EXCL", "--bytes", "--sort", "EXCL"])
        #expect(result.stdout == " ID      EXCL\n302 314572800\n300  10485760\n301   1048576\n303      4096\n")
        #expect(result.stderr.contains("326111232 bytes exclusive"))
    }

    @Test func selectionNarrowsTheListing() {
        #expect(list(["--manager", "snapper", "--output", "ID"]).stdout == " ID\n301\n")
        #expect(list(["--older-than", "30d", "--output", "ID"]).stdout == " ID\n301\n300\n")
        // Retention counts per series (manager and source, snapper config): here each
        // snapshot is the only one of its series, so --keep-last 1 keeps them all.
        #expect(list(["--keep-last", "1", "--output", "ID"]).stdout == "")
        #expect(list(["--keep-last", "0", "--output", "ID"]).stdout == " ID\n301\n300\n302\n303\n")
        #expect(list(["--source", "/mnt/@home", "--output", "ID"]).stdout == " ID\n300\n303\n")
        #expect(list(["--match", "*upgrade*", "--output", "ID"]).stdout == " ID\n302\n")
        #expect(list(["--before", "2026-10-01", "--after", "2026-09-01", "--output", "ID"]).stdout == " ID\n301\n")
        let none = list(["--manager", "btrbk", "--older-than", "90d"])
        #expect(none.status == 0 && none.stdout == "" && none.stderr == "carve: 0 snapshots\n")
    }

    @Test func allSubvolumesShowsPlainSubvolumesMarked() {
        let result = list(["--all-subvolumes", "--output", "ID,MANAGER,SNAPSHOT", "--sort", "ID"])
        #expect(
            result.stdout
                == " ID MANAGER     SNAPSHOT\n256 (subvolume) no\n257 (subvolume) no\n300 btrbk       yes\n301 snapper     yes\n302 timeshift   yes\n303 plain       yes\n"
        )
        #expect(result.stderr.hasPrefix("carve: 4 snapshots"))
    }

    @Test(arguments: [
        (["--older-than", "30"], "carve: invalid duration '30': no unit"),
        (["--older-than=-3d"], "carve: invalid duration '-3d': negative"),
        (["--before", "2026-13-01"], "carve: invalid date '2026-13-01': month 13 out of range"),
        (["--manager", "zfs"], "carve: invalid manager 'zfs' for --manager"),
        (["--match", "[abc"], "carve: invalid pattern '[abc'"),
        (["--output", "ID,BOGUS"], "carve: unknown column 'BOGUS' for --output"),
        (["--sort", "size"], "carve: cannot sort by 'size'"),
        (["--sizes", "guess"], "carve: "),
        (
            ["--after", "2026-11-01", "--before", "2026-10-01"],
            "carve: --after 2026-11-01 is not earlier than --before 2026-10-01"
        ),
    ])
    func badInputIsAUsageErrorNamingIt(arguments: [String], message: String) {
        let result = list(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix(message))
        #expect(result.stdout == "")
    }

    /// Bad input, exit 64, as delete and thin say for the same path.
    @Test func aPathOnAnotherFilesystemIsBadInput() {
        let backend = Self.backend()
        backend.setForeign("/home", error: RuntimeError("/home is on ext4: it has no btrfs snapshots"))
        let result = list(["/home"], backend: backend)
        #expect(result.status == 64)
        #expect(result.stderr == "carve: /home is on ext4: it has no btrfs snapshots\n")
    }

    @Test func pathsOfOneFilesystemListItOnce() {
        let backend = Self.backend()
        let result = list(["/mnt/@home", "/mnt", "--output", "ID"], backend: backend)
        #expect(result.stdout == " ID\n301\n300\n302\n303\n")
        #expect(backend.calls.filter { if case .subvolumes = $0 { true } else { false } }.count == 1)
    }

    @Test func everyMountedFilesystemWithoutPaths() {
        let other = Filesystem(
            uuid: "other", devices: ["/dev/vdz"],
            mounts: [FilesystemMount(mountpoint: "/srv", subvolumePath: "/", subvolumeID: 5)])
        let backend = Self.backend()
        backend.filesystems.append(
            .init(
                filesystem: other,
                subvolumes: [
                    F.snapshot(400, path: "s", of: nil, daysAgo: 100, mountedAt: "/srv", exclusive: 1, referenced: 1)
                ]))
        let result = list(["--output", "ID,FILESYSTEM"], backend: backend)
        #expect(result.stdout == " ID FILESYSTEM\n400 /srv\n301 /mnt\n300 /mnt\n302 /mnt\n303 /mnt\n")
        #expect(result.stderr.hasPrefix("carve: 5 snapshots on 2 filesystems"))
    }

    @Test func warningsGoToStderrAndTheListingGoesOn() {
        let backend = Self.backend(warnings: [
            "cannot use /mnt/x/.snapshots/9/info.xml: not well-formed XML; the snapshot is listed as plain"
        ])
        let result = list(["--output", "ID"], backend: backend)
        #expect(result.status == 0 && result.stdout.hasSuffix("303\n"))
        #expect(result.stderr.hasPrefix("carve: warning: cannot use /mnt/x/.snapshots/9/info.xml: not well-formed XML"))
    }

    /// Root refused (a sandbox, a security module) fails with the cause; only a user who
    /// is not root is told that it needs root.
    @Test(arguments: [(true, Int32(1)), (false, 77)])
    func aFailingBackendEndsWithItsError(isRoot: Bool, status: Int32) {
        let backend = Self.backend()
        backend.fail(
            .subvolumes(F.filesystem().uuid),
            with: SystemCallError(
                "cannot list the subvolumes of /mnt", call: "btrfs_util_create_subvolume_iterator_fd", errno: 1))
        let result = list([], backend: backend, isRoot: isRoot)
        #expect(result.status == status)
        #expect(
            result.stderr
                == "carve: cannot list the subvolumes of /mnt: operation not permitted (EPERM, btrfs_util_create_subvolume_iterator_fd)\n"
        )
    }

    @Test func quotaSizesNeedRoot() {
        let result = list(["--sizes", "quota"], isRoot: false)
        #expect(result.status == 77)
        #expect(result.stderr == "carve: reading quota sizes (--sizes quota) needs root\n")
    }

    @Test func outputHelpListsEveryColumn() {
        let result = list(["--output", "help"])
        #expect(result.status == 0)
        #expect(result.stdout.split(separator: "\n").count == SnapshotColumns.all.count)
    }
}
