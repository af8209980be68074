import CarveCore
import CarveTestSupport
import Foundation
import Testing

@testable import CarveLinux

/// /proc read under a fixture host root: each process's cwd, root, fds and mapped
/// files are links into the tree, and a "volume" is a directory of the fixture, whose
/// device the links must land on.
@Suite struct ProcVolumeHoldersTests {
    typealias F = SnapshotFixtures

    func volume(at path: String) -> Volume {
        Volume(id: 300, path: "snap", mountedPath: path, uuid: F.uuid(300), parentUUID: F.uuid(1), created: F.epoch)
    }

    /// The same whether /proc and the named paths' devices were read when first asked or
    /// ahead, on threads, by `prefetch` and `prefetch(devicesOf:)`.
    @Test(arguments: [false, true], [false, true])
    func findsTheProcessesWhoseFilesDirectoriesOrMapsLieOnTheVolume(prefetched: Bool, devicesAhead: Bool) throws {
        let target = try Integration.makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: target) }
        try Data("x".utf8).write(to: URL(fileURLWithPath: target + "/file"))
        let root = try Integration.makeTree(
            [
                "proc/100/comm": "restic\n", "proc/101/comm": "borg\n", "proc/102/comm": "python3\n",
                "proc/104/comm": "bash\n", "proc/self/comm": "carve\n", "proc/1x/comm": "odd\n",
                "proc/102/maps": """
                7f00-7f01 r--p 00000000 00:2a 1234 \(target)/file
                7f01-7f02 r-xp 00000000 08:01 99 /usr/lib/libc.so.6
                7f02-7f03 rw-p 00000000 00:00 0 [heap]
                garbage
                """,
            ],
            links: [
                "proc/100/fd/3": target + "/file", "proc/100/cwd": "/proc", "proc/100/root": "/proc",
                "proc/101/cwd": target, "proc/101/root": "/proc",
                "proc/102/map_files/7f00-7f01": target + "/file", "proc/102/map_files/7f01-7f02": target,
                "proc/104/cwd": "/proc", "proc/104/fd/0": "/dev/null", "proc/self/cwd": target, "proc/1x/cwd": target,
            ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let holders = ProcVolumeHolders(host: HostRoot(root))
        if prefetched { holders.prefetch() }
        if devicesAhead { holders.prefetch(devicesOf: [target, target + "/missing", "/proc"]) }
        let found = holders.holders(of: volume(at: target), on: F.filesystem(), recheck: false).holders
        // 104 holds only /proc and /dev/null; 102's libc line is not on an anonymous device, so its
        // map_files link (here into the volume) is never looked at.
        #expect(
            found == [
                .init(pid: 100, command: "restic"), .init(pid: 101, command: "borg"),
                .init(pid: 102, command: "python3"),
            ])
        var missing = volume(at: target + "/missing")
        missing.id = 301
        #expect(holders.holders(of: missing, on: F.filesystem(), recheck: false) == VolumeHolding())
        var unreachable = volume(at: target)
        unreachable.id = 302
        unreachable.mountedPath = nil
        #expect(holders.holders(of: unreachable, on: F.filesystem(), recheck: false) == VolumeHolding())
    }

    @Test func aRecheckReadsProcAgainOnlyOnceTheLastReadIsOld() throws {
        let target = try Integration.makeScratchDirectory()
        let root = try Integration.makeTree(["proc/100/comm": "sleep\n"], links: ["proc/100/cwd": "/proc"])
        defer { for path in [target, root] { try? FileManager.default.removeItem(atPath: path) } }
        let fresh = ProcVolumeHolders(host: HostRoot(root), recheckAfter: 0)
        let lazy = ProcVolumeHolders(host: HostRoot(root), recheckAfter: 3_600)
        for holders in [fresh, lazy] {
            #expect(holders.holders(of: volume(at: target), on: F.filesystem(), recheck: false).holders == [])
        }
        try FileManager.default.createDirectory(atPath: root + "/proc/100/fd", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/proc/100/fd/4", withDestinationPath: target)
        #expect(
            fresh.holders(of: volume(at: target), on: F.filesystem(), recheck: false).holders == [], "read once a run")
        #expect(
            fresh.holders(of: volume(at: target), on: F.filesystem(), recheck: true).holders == [
                .init(pid: 100, command: "sleep")
            ])
        #expect(lazy.holders(of: volume(at: target), on: F.filesystem(), recheck: true).holders == [])
        lazy.refresh()
        #expect(
            lazy.holders(of: volume(at: target), on: F.filesystem(), recheck: false).holders == [
                .init(pid: 100, command: "sleep")
            ], "a refresh reads afresh, however recent the last read")
    }

    /// What a look could not see is kept per filesystem for the snapshots of one run, and
    /// a look read again (before a deletion) decides afresh: a /proc gone unreadable since
    /// leaves the volume unseen, not as the last read found it.
    @Test func aRecheckThatCannotSeeIsNotAnsweredByTheLastRead() throws {
        let target = try Integration.makeScratchDirectory()
        let root = try Integration.makeTree(["proc/100/comm": "sleep\n"], links: ["proc/100/cwd": "/proc"])
        defer { for path in [target, root] { try? FileManager.default.removeItem(atPath: path) } }
        let holders = ProcVolumeHolders(host: HostRoot(root), recheckAfter: 0)
        let first = holders.holders(of: volume(at: target), on: F.filesystem(), recheck: false)
        #expect(first.unseen?.cause.hasPrefix("cannot read /proc: ") != true, "\(String(describing: first.unseen))")
        try FileManager.default.removeItem(atPath: root + "/proc")
        for recheck in [true, false] {
            let again = holders.holders(of: volume(at: target), on: F.filesystem(), recheck: recheck)
            #expect(again.unseen?.cause.hasPrefix("cannot read /proc: ") == true, "\(String(describing: again.unseen))")
        }
    }

    @Test func noProcDirectoryLeavesEveryVolumeUnseen() throws {
        let root = try Integration.makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let holding = ProcVolumeHolders(host: HostRoot(root)).holders(
            of: volume(at: root), on: F.filesystem(), recheck: false)
        #expect(holding.holders == [])
        #expect(holding.unseen?.processes == [])
        #expect(holding.unseen?.cause.hasPrefix("cannot read /proc: ") == true, "\(String(describing: holding.unseen))")
    }

    /// A PID namespace other than the host's, or hidepid without CAP_SYS_PTRACE: some
    /// processes are not even listed, so every volume may be held.
    @Test(
        arguments: [
            ("pid:[4026532999]", "rw", "0000000000000000", "PID namespace other than the host's"),
            ("pid:[4026531836]", "rw,hidepid=invisible", "000001ffffffffff", nil),
            ("pid:[4026531836]", "rw,hidepid=invisible", "000001fffff7ffff", "hidepid=invisible"),
            ("pid:[4026531836]", "rw,hidepid=2", "0000000000000000", "hidepid=2"),
            ("pid:[4026531836]", "rw,hidepid=noaccess", "0000000000000000", nil),
        ] as [(String, String, String, String?)])
    func processesLeftOutOfProcLeaveEveryVolumeUnseen(
        namespace: String, procOptions: String, capabilities: String, cause: String?
    ) throws {
        let target = try Integration.makeScratchDirectory()
        let root = try Integration.makeTree(
            [
                "proc/self/status": "Name:\tcarve\nCapEff:\t\(capabilities)\n",
                "proc/self/mountinfo": "22 27 0:21 / /proc rw,relatime - proc proc \(procOptions)\n",
                "proc/100/comm": "sleep\n",
            ], links: ["proc/self/ns/pid": namespace, "proc/100/cwd": "/proc"])
        defer { for path in [target, root] { try? FileManager.default.removeItem(atPath: path) } }
        let holding = ProcVolumeHolders(host: HostRoot(root)).holders(
            of: volume(at: target), on: F.filesystem(), recheck: false)
        #expect(
            holding.unseen?.cause.contains(cause ?? "\u{0}") ?? (cause == nil), "\(String(describing: holding.unseen))")
        #expect(holding.unseen?.processes ?? [] == [])
    }

    @Test(arguments: [
        ("", [String]()),
        ("7f00-7f01 r--p 00000000 00:2a 12 /a\n7f01-7f02 r--p 00001000 00:2a 12 /a\n", ["7f00-7f01"]),
        ("7f00-7f01 r--p 00000000 00:2a 12 /a b/with spaces\n", ["7f00-7f01"]),
        // As the kernel writes them: the path padded to a column.
        ("7f00-7f01 r--p 00000000 00:2a 12                         /a\n", ["7f00-7f01"]),
        ("7f00-7f01 r--p 00000000 00:2a 0 [stack]\n", []),
        ("7f00-7f01 r--p 00000000 fd:00 12 /usr/lib/x\n", []),
        ("7f00-7f01 r--p\n\n\u{0}\u{ff} 00:2a\nonly-one-field\n", []),
        ("7f00-7f01 r--p 00000000 00:2a 12 (deleted)\n", []),
    ])
    func mapsLinesGiveOneRangePerFileOnAnAnonymousDevice(text: String, ranges: [String]) {
        #expect(MapsLines.ranges(ofFilesIn: Array(text.utf8)) == ranges)
    }
}
