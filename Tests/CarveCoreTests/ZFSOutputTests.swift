import CarveCore
import CarveTestSupport
import Testing

/// The parsers of what `zfs` and `zpool` print, on their transcripts (zfs-fuse captured,
/// OpenZFS written from its source) and on malformed input: one clear error, never a guess.
@Suite struct ZFSOutputTests {
    static let columns = ZFSListOutput.properties

    func run(_ transcript: String, _ arguments: [String]) throws -> String {
        let replay = try ZFSTranscript(named: transcript)
        return try #require(try replay.runner(arguments)).stdout
    }

    @Test func openZFSListingIsReadRowByRow() throws {
        let text = try run(
            "openzfs-2.2",
            [
                "zfs", "list", "-H", "-p", "-t", "filesystem,volume,snapshot", "-o",
                Self.columns.joined(separator: ","), "-r", "tank",
            ])
        let datasets = try ZFSListOutput.parseList(text, columns: Self.columns)
        #expect(datasets.count == 19)
        let held = try #require(datasets.first { $0.name == "tank/plain@held" })
        #expect(held.kind == .snapshot && held.userrefs == 1 && held.guid == 2102 && held.used == 524_288)
        #expect(held.dataset == "tank/plain" && held.snapshotName == "held" && held.pool == "tank")
        #expect(datasets.first { $0.name == "tank/plain@base" }?.clones == ["tank/work"])
        #expect(datasets.first { $0.name == "tank/work" }?.origin == "tank/plain@base")
        #expect(datasets.first { $0.name == "tank/plain@before upgrade" } != nil, "a space survives")
    }

    @Test func zfsFusesGetOutputIsReadDatasetByDataset() throws {
        let replay = try ZFSTranscript(named: "zfs-fuse-0.7")
        let arguments = [
            "zfs", "get", "-H", "-p", "-o", "name,property,value",
            "type,guid,creation,used,referenced,available,userrefs,origin,defer_destroy,org.znapzend:tsformat", "-r",
            "fixture",
        ]
        let datasets = try ZFSListOutput.parseGet(try #require(try replay.runner(arguments)).stdout)
        #expect(datasets.count == 6)
        let sanoid = try #require(datasets.first { $0.name.hasSuffix("@autosnap_2026-11-20_00:00:01_daily") })
        #expect(sanoid.userrefs == 1 && sanoid.clones == nil && sanoid.znapzendFormat == "%Y-%m-%d-%H%M%S")
        #expect(
            datasets.first { $0.name == "fixture/work" }?.origin == "fixture/home@zfs-auto-snap_daily-2026-11-20-0000")
        #expect(datasets.contains { $0.name == "fixture/home@with space" })
    }

    @Test(arguments: [
        ("tank\tfilesystem\t1\t0\t0\t0\t-\t-\t-", "fields"),
        ("tank\tpool\t1\t0\t0\t0\t-\t-\t-\t-", "dataset type"),
        ("tank\tfilesystem\tx\t0\t0\t0\t-\t-\t-\t-", "a number"),
        ("tank\tfilesystem\t1\tsoon\t0\t0\t-\t-\t-\t-", "seconds since 1970"),
        ("tank\tfilesystem\t1\t0\t12K\t0\t-\t-\t-\t-", "a byte count"),
        ("tank@x\tsnapshot\t1\t0\t0\t0\t-1\t-\t-\toff", "a count"),
        ("tank\tsnapshot\t1\t0\t0\t0\t0\t-\t-\toff", "not a snapshot name"),
        ("tank@x\tsnapshot\t1\t0\t0\t0\t0\t-\t-\tmaybe", "on or off"),
    ])
    func malformedListingsAreRefused(line: String, reason: String) {
        #expect {
            try ZFSListOutput.parseList(line + "\n", columns: Self.columns)
        } throws: { error in
            (error as? ParseError)?.message.contains(reason) == true
        }
    }

    @Test(arguments: [
        ("tank\ttype\n", "NAME, PROPERTY and VALUE"),
        ("tank\ttype\tfilesystem\ntank\tcreation\t0\ntank/a\ttype\tfilesystem\ntank\tused\t0\n", "appears twice"),
        ("tank\tcreation\t0\n", "no type"),
        ("tank\ttype\tfilesystem\n", "no creation"),
    ])
    func malformedGetOutputIsRefused(text: String, reason: String) {
        #expect {
            try ZFSListOutput.parseGet(text)
        } throws: { error in
            (error as? ParseError)?.message.contains(reason) == true
        }
    }

    @Test func holdsDryRunsPoolsAndFreeing() throws {
        #expect(
            try ZFSCommandOutput.holds(run("openzfs-2.1", ["zfs", "holds", "-H", "tank/plain@held"])) == [
                "tank/plain@held": ["keep"]
            ])
        let dryRun = try ZFSCommandOutput.destroyDryRun("destroy\ttank/a@x\ndestroy\ttank/a@y\nreclaim\t4096\n")
        #expect(dryRun.destroyed == ["tank/a@x", "tank/a@y"] && dryRun.reclaim == 4096)
        let pools = try ZFSCommandOutput.pools("tank\t8888\tONLINE\nold\t9\tSUSPENDED\n")
        #expect(pools.map(\.isReadable) == [true, false])
        #expect(try ZFSCommandOutput.freeing("0\n") == 0)
        #expect(throws: ParseError.self) { try ZFSCommandOutput.holds("tank/a@x\tkeep\n") }
        #expect(throws: ParseError.self) { try ZFSCommandOutput.holds("tank/a\tkeep\tThu\n") }
        #expect(throws: ParseError.self) { try ZFSCommandOutput.destroyDryRun("destroy\ttank/a@x\n") }
        #expect(throws: ParseError.self) { try ZFSCommandOutput.destroyDryRun("reclaim\t1\nreclaim\t2\n") }
        #expect(throws: ParseError.self) { try ZFSCommandOutput.destroyDryRun("would destroy tank/a@x\nreclaim\t1\n") }
        #expect(throws: ParseError.self) { try ZFSCommandOutput.pools("tank/a\t1\tONLINE\n") }
        #expect(throws: ParseError.self) { try ZFSCommandOutput.pools("tank\tguid\tONLINE\n") }
        #expect(throws: ParseError.self) { try ZFSCommandOutput.freeing("-\n") }
        let facts = try ZFSCommandOutput.datasetFacts("tank\t-\t-\ntank/a\ttank/b@x\t%Y%m%d\n")
        #expect(facts.map(\.origin) == [nil, "tank/b@x"] && facts.map(\.znapzendFormat) == [nil, "%Y%m%d"])
        #expect(throws: ParseError.self) { try ZFSCommandOutput.datasetFacts("tank@x\t-\t-\n") }
        #expect(throws: ParseError.self) { try ZFSCommandOutput.datasetFacts("tank\t-\n") }
        #expect(throws: ParseError.self) { try ZFSCommandOutput.datasetFacts("tank\tnot-a-snapshot\t-\n") }
    }

    @Test func theDialectIsReadFromTheUsageTexts() throws {
        func dialect(_ transcript: String) throws -> ZFSDialect {
            ZFSDialect.detect(
                zfsUsage: try #require(try ZFSTranscript(named: transcript).runner(["zfs"])).stderr,
                getUsage: try #require(try ZFSTranscript(named: transcript).runner(["zfs", "get"])).stderr,
                zpoolUsage: try #require(try ZFSTranscript(named: transcript).runner(["zpool"])).stderr)
        }
        let fuse = try dialect("zfs-fuse-0.7")
        #expect(fuse == ZFSDialect(), "zfs-fuse: none of OpenZFS's scriptable extras")
        #expect(!fuse.listedProperties.contains("clones") && fuse.name.contains("zfs-fuse"))
        for version in ["openzfs-2.1", "openzfs-2.2", "openzfs-2.3"] {
            let open = try dialect(version)
            #expect(open.listParsable && open.destroyDryRun && open.snapshotLists && open.holdsScripted, "\(version)")
            #expect(open.clonesProperty && open.poolParsable && open.poolStatusPaths, "\(version)")
            #expect(open.listJSON == (version == "openzfs-2.3"), "zfs list -j came with 2.3")
        }
    }

    @Test func zpoolStatusGivesThePoolsLayout() throws {
        let status = """
              pool: tank
             state: ONLINE
            config:

            \tNAME            STATE     READ WRITE CKSUM
            \ttank            ONLINE       0     0     0
            \t  mirror-0      ONLINE       0     0     0
            \t    /dev/sdb1   ONLINE       0     0     0
            \t    /dev/sdc1   ONLINE       0     0     0
            \t  /dev/sdd1     ONLINE       0     0     0
            \tlogs
            \t  /dev/sde1     ONLINE       0     0     0
            \tspares
            \t  /dev/sdf1     AVAIL

            errors: No known data errors
            """
        let layout = try ZFSPoolLayout.parse(status: status)
        #expect(layout.pool == "tank" && layout.state == "ONLINE")
        #expect(layout.dataVdevs.map(\.kind) == ["mirror", "disk"])
        #expect(layout.vdev(holding: "/dev/sdc1")?.name == "mirror-0")
        #expect(layout.vdev(holding: "/dev/sde1")?.section == "logs")
        #expect(
            layout.summary
                == "2 top-level vdevs: mirror-0 (/dev/sdb1, /dev/sdc1), /dev/sdd1; logs: /dev/sde1; spares: /dev/sdf1")
        #expect(throws: ParseError.self) {
            try ZFSPoolLayout.parse(status: "  pool: tank\nconfig:\n\n\tNAME STATE\n\ttank ONLINE\n")
        }
        #expect(throws: ParseError.self) { try ZFSPoolLayout.parse(status: "nothing") }
        #expect(throws: ParseError.self) {
            try ZFSPoolLayout.parse(status: "  pool: tank\nconfig:\n\n\tother ONLINE\n\t  sdb ONLINE\n")
        }
    }
}
