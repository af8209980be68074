@testable import CarveCore
import CarveTestSupport
import Testing

/// The ZFS tools and engines as owners: recognised by the names they give and the
/// datasets they keep, dated by their names, one retention series per label or type,
/// the replication tools' newest snapshot kept as a base.
@Suite struct ZFSOwnersTests {
    static let utc = TimeZone(identifier: "UTC")!

    /// The volumes of `datasets` (names; `@` for snapshots, created at `created` in order),
    /// classified as the ZFS backend classifies them.
    func classified(
        _ names: [String], formats: [String: String] = [:], zone: TimeZone = utc
    ) -> (volumes: [Volume], warnings: [String]) {
        var datasets: [ZFSDataset] = []
        for (index, name) in names.enumerated() {
            var dataset = ZFSDataset(
                name: name, kind: name.contains("@") ? .snapshot : .filesystem,
                creation: Date(timeIntervalSince1970: 1_795_000_000 + Double(index)))
            dataset.guid = UInt64(index + 1)
            dataset.znapzendFormat = formats[String(dataset.dataset)]
            datasets.append(dataset)
        }
        var volumes = ZFSVolumes(datasets: datasets).volumes(within: "tank")
        var settings = OwnerSettings()
        settings[ZnapzendFormats.self] = ZnapzendFormats(formats)
        let known = Set(names.filter { !$0.contains("@") })
        let classifier = SnapshotClassifier(
            context: OwnerContext(
                timeZone: zone, readFile: { _, _ in nil }, probe: { known.contains($0) }, settings: settings),
            owners: SnapshotOwners.all(for: .zfs))
        let warnings = classifier.classify(&volumes)
        ZFSReplicationBases.mark(&volumes)
        return (volumes, warnings)
    }

    func owner(_ name: String, in volumes: [Volume]) -> ManagerMetadata? {
        volumes.first { $0.path == name }?.metadata
    }

    @Test func theToolsAreKnownByTheirNamesAndDatedByThem() {
        let (volumes, _) = classified([
            "tank", "tank/home", "tank/home@zfs-auto-snap_daily-2026-11-20-0000",
            "tank/home@zfs-auto-snap_frequent-2026-11-20-0015", "tank/home@autosnap_2026-11-20_01:02:03_hourly",
            "tank/home@syncoid_backup_host1_2026-11-20:01:02:03-GMT01:00",
            "tank/home@syncoid_host1_2026-11-20:01:02:03-GMT-05:00", "tank/home@syncoid_host1_2026-11-20:01:02:03",
            "tank/home@zrepl_20261120_010203_000", "tank/home@__replicate_100-0_1795000000__", "tank/home@manual",
        ])
        func iso(_ name: String) -> String? { owner("tank/home@" + name, in: volumes)?.created.map(\.description) }
        #expect(owner("tank/home@zfs-auto-snap_daily-2026-11-20-0000", in: volumes)?.manager == .zfsAutoSnapshot)
        #expect(owner("tank/home@zfs-auto-snap_daily-2026-11-20-0000", in: volumes)?.type == "daily")
        #expect(iso("zfs-auto-snap_frequent-2026-11-20-0015") == "2026-11-20T00:15:00Z")
        #expect(owner("tank/home@autosnap_2026-11-20_01:02:03_hourly", in: volumes)?.type == "hourly")
        #expect(iso("autosnap_2026-11-20_01:02:03_hourly") == "2026-11-20T01:02:03Z", "sanoid: local time, here UTC")
        #expect(
            owner("tank/home@syncoid_backup_host1_2026-11-20:01:02:03-GMT01:00", in: volumes)?.type == "backup_host1")
        #expect(iso("syncoid_backup_host1_2026-11-20:01:02:03-GMT01:00") == "2026-11-20T00:02:03Z", "GMT01:00 is east")
        #expect(iso("syncoid_host1_2026-11-20:01:02:03-GMT-05:00") == "2026-11-20T06:02:03Z")
        #expect(iso("syncoid_host1_2026-11-20:01:02:03") == "2026-11-20T01:02:03Z", "older syncoid: local time")
        #expect(owner("tank/home@zrepl_20261120_010203_000", in: volumes)?.manager == .zrepl)
        #expect(iso("zrepl_20261120_010203_000") == "2026-11-20T01:02:03Z")
        #expect(owner("tank/home@__replicate_100-0_1795000000__", in: volumes)?.type == "100-0")
        #expect(owner("tank/home@manual", in: volumes)?.manager == .plain)
        #expect(volumes.first { $0.path == "tank/home" }?.isSnapshot == false, "a dataset is never a snapshot")
    }

    @Test func namesThatOnlyLookLikeATools() {
        let (volumes, warnings) = classified([
            "tank", "tank/home", "tank/home@zfs-auto-snap_daily-2026-13-40-0000", "tank/home@autosnap_today_daily",
            "tank/home@syncoid_", "tank/home@zrepl_now", "tank/home@__replicate_x__", "tank/home@2026-11-20-010203",
        ])
        #expect(volumes.filter { $0.zfs != nil }.allSatisfy { $0.metadata.manager == .plain })
        #expect(warnings.contains { $0.contains("not a date zfs-auto-snapshot writes") })
    }

    @Test func znapzendIsKnownByTheFormatItsSetupStoresOnTheDataset() {
        let (volumes, _) = classified(
            ["tank", "tank/home", "tank/home@2026-11-20-010203", "tank/other", "tank/other@2026-11-20-010203"],
            formats: ["tank/home": "%Y-%m-%d-%H%M%S"])
        #expect(owner("tank/home@2026-11-20-010203", in: volumes)?.manager == .znapzend)
        #expect(owner("tank/home@2026-11-20-010203", in: volumes)?.created?.description == "2026-11-20T01:02:03Z")
        #expect(owner("tank/other@2026-11-20-010203", in: volumes)?.manager == .plain, "no property: not znapzend's")
        #expect(ZnapzendOwner.pattern("%Y%m%d_%H%M") == "YYYYMMDD_hhmm")
        #expect(ZnapzendOwner.pattern("%s") == nil && ZnapzendOwner.pattern("Day-%d") == nil)
    }

    @Test func enginesOwnTheirDatasetsSnapshots() {
        let layer = String(repeating: "ab", count: 32)
        let (volumes, _) = classified([
            "tank", "tank/docker", "tank/docker/\(layer)", "tank/docker/\(layer)@123456789", "tank/incus",
            "tank/incus/deleted", "tank/incus/containers", "tank/incus/containers/web",
            "tank/incus/containers/web@snapshot-daily", "tank/incus/images", "tank/incus/images/f00d@readonly",
            "tank/lookalike/containers/web", "tank/lookalike/containers/web@snapshot-daily",
        ])
        #expect(owner("tank/docker/\(layer)@123456789", in: volumes)?.manager == .docker)
        #expect(owner("tank/incus/containers/web@snapshot-daily", in: volumes)?.manager == .incus)
        #expect(owner("tank/incus/containers/web@snapshot-daily", in: volumes)?.config == "tank/incus")
        #expect(owner("tank/incus/images/f00d@readonly", in: volumes)?.manager == .incus)
        #expect(owner("tank/lookalike/containers/web@snapshot-daily", in: volumes)?.manager == .plain, "no deleted/")
        let rules = DeletionRules()
        let docker = volumes.first { $0.path.hasSuffix("@123456789") }!
        #expect(rules.protections(of: docker) == [.ownedBy(.docker, tool: "docker")])
    }

    @Test func theNewestSnapshotOfEachReplicationSeriesIsTheBase() {
        let (volumes, _) = classified([
            "tank", "tank/home", "tank/home@syncoid_a_2026-11-20:00:00:00-GMT00:00",
            "tank/home@syncoid_a_2026-11-21:00:00:00-GMT00:00", "tank/home@syncoid_b_2026-11-19:00:00:00-GMT00:00",
            "tank/home@zrepl_20261120_000000_000", "tank/home@__replicate_100-0_1795000000__",
            "tank/home@__replicate_100-0_1794000000__", "tank/home@autosnap_2026-11-22_00:00:00_daily",
        ])
        let bases = Set(volumes.filter { $0.chainParent != nil }.map(\.path))
        #expect(
            bases == [
                "tank/home@syncoid_a_2026-11-21:00:00:00-GMT00:00", "tank/home@syncoid_b_2026-11-19:00:00:00-GMT00:00",
                "tank/home@zrepl_20261120_000000_000", "tank/home@__replicate_100-0_1795000000__",
            ])
        let base = volumes.first { $0.path == "tank/home@syncoid_a_2026-11-21:00:00:00-GMT00:00" }!
        #expect(DeletionRules().protections(of: base).count == 1)
        #expect(DeletionRules(breakChains: true).protections(of: base).isEmpty)
    }

    @Test func retentionCountsPerDatasetAndSeries() {
        let (volumes, _) = classified([
            "tank", "tank/a", "tank/a@zfs-auto-snap_daily-2026-11-20-0000",
            "tank/a@zfs-auto-snap_daily-2026-11-21-0000",
            "tank/a@zfs-auto-snap_hourly-2026-11-21-0900", "tank/b", "tank/b@zfs-auto-snap_daily-2026-11-21-0000",
        ])
        let selection = SnapshotSelection(keepLast: 1)
        let chosen = selection.apply(to: volumes, now: Date(timeIntervalSince1970: 1_795_392_000)).map(\.path)
        // One series per dataset and label: each keeps its newest; only tank/a's older daily goes.
        #expect(chosen == ["tank/a@zfs-auto-snap_daily-2026-11-20-0000"])
    }

    @Test func holdsClonesAndSendsAreZFSsOwnRefusalsWhateverTheFlags() {
        var held = ZFSDataset(name: "tank/a@x", kind: .snapshot, creation: Date(timeIntervalSince1970: 0))
        held.userrefs = 2
        var input = ZFSVolumes(datasets: [
            ZFSDataset(name: "tank", kind: .filesystem, creation: Date(timeIntervalSince1970: 0)),
            ZFSDataset(name: "tank/a", kind: .filesystem, creation: Date(timeIntervalSince1970: 0)), held,
            ZFSDataset(name: "tank/a@y", kind: .snapshot, creation: Date(timeIntervalSince1970: 0)),
            {
                var clone = ZFSDataset(name: "tank/c", kind: .filesystem, creation: Date(timeIntervalSince1970: 0))
                clone.origin = "tank/a@y"; return clone
            }(),
            ZFSDataset(name: "tank/a@z", kind: .snapshot, creation: Date(timeIntervalSince1970: 0)),
        ])
        input.holdTags = ["tank/a@x": ["keep", "zrepl_STEP_J_push"]]
        input.sends = ["tank/a@z": ["4242 (zfs send)"]]
        let volumes = input.volumes(within: "tank")
        let rules = DeletionRules(includeImportant: true, breakChains: true, ignoreInUse: true)
        func reasons(_ name: String) -> [String] {
            rules.protections(of: volumes.first { $0.path == name }!, named: true).map(\.reason)
        }
        #expect(
            reasons("tank/a@x") == [
                "it has 2 user holds (keep, zrepl_STEP_J_push): zfs refuses to destroy it (dataset is busy); release them with zfs release"
            ])
        #expect(reasons("tank/a@y").first?.contains("origin of tank/c") == true, "from the clone's origin")
        #expect(reasons("tank/a@z").first?.contains("zfs send is reading it (4242 (zfs send))") == true)
        #expect(reasons("tank/c").contains { $0.contains("not a snapshot") })
    }
}
