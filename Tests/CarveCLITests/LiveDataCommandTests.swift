@testable import CarveCLI
import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// delete, thin and list with an engine's layer (320, podman), a clone in use (321)
/// and an untouched writable snapshot (322) beside the harness's snapshots.
@Suite struct LiveDataCommandTests {
    typealias F = SnapshotFixtures

    static func harness() -> DeleteHarness {
        let home = F.subvolume(256, path: "@home")
        var clone = F.snapshot(321, path: "work/clone", of: home, daysAgo: 90, exclusive: 5 << 20)
        clone.readOnly = false
        clone.changedSinceTaken = true
        var untouched = F.snapshot(322, path: "work/untouched", of: home, daysAgo: 85, exclusive: 5 << 20)
        untouched.readOnly = false
        return DeleteHarness(extra: [
            F.snapshot(
                320, path: "srv/podman/btrfs/subvolumes/c0ffee", of: home, daysAgo: 100,
                metadata: ManagerMetadata(manager: .podman), exclusive: 50 << 20),
            clone, untouched,
        ])
    }

    @Test func bulkSelectionsLeaveLiveDataWithItsReasonAndExitZero() throws {
        for arguments in [
            ["delete", "--all", "--yes"], ["delete", "--older-than", "0d", "--yes"],
            ["thin", "/mnt", "--free", "900M", "--best-effort", "--yes"],
        ] {
            let harness = Self.harness()
            let result = harness.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(harness.remaining.contains(320) && harness.remaining.contains(321), "\(arguments)")
            #expect(!harness.remaining.contains(322), "\(arguments)")
        }
        let result = Self.harness().run(["delete", "--all", "--dry-run"])
        #expect(
            result.stdout.contains(
                "320 /mnt/srv/podman/btrfs/subvolumes/c0ffee: owned by podman: delete it with podman"))
        #expect(result.stdout.contains("321 /mnt/work/clone: written to since it was taken: a clone in use"))
    }

    @Test func anEngineSnapshotNamedIsRefusedExit4BesideOthersAnd1Alone() {
        let harness = Self.harness()
        let both = harness.run(["delete", "/mnt/srv/podman/btrfs/subvolumes/c0ffee", "/mnt/snaps/home.0", "--yes"])
        #expect(both.status == 4)
        #expect((both.stdout + both.stderr).contains("owned by podman: delete it with podman"))
        #expect(!harness.remaining.contains(300) && harness.remaining.contains(320))
        let alone = harness.run(["delete", "--id", "320", "--yes"])
        #expect(alone.status == 1)
        #expect(harness.remaining.contains(320))
    }

    @Test func aCloneInUseNamedIsDeleted() {
        let harness = Self.harness()
        #expect(harness.run(["delete", "/mnt/work/clone", "--yes"]).status == 0)
        #expect(!harness.remaining.contains(321))
    }

    @Test func aHeldSnapshotIsKeptUnlessIgnoreInUse() {
        let harness = Self.harness()
        harness.holders = FakeVolumeHolders([300: [VolumeHolder(pid: 4242, command: "restic")]])
        let bulk = harness.run(["delete", "--manager", "plain", "--older-than", "55d", "--yes"])
        #expect(bulk.status == 0)
        #expect(
            (bulk.stdout + bulk.stderr).contains("300 /mnt/snaps/home.0: in use by 4242 (restic) (use --ignore-in-use)")
        )
        #expect(harness.remaining.contains(300))
        #expect(harness.run(["delete", "/mnt/snaps/home.0", "--yes"]).status == 1)
        #expect(harness.run(["delete", "/mnt/snaps/home.0", "--yes", "--ignore-in-use"]).status == 0)
        #expect(!harness.remaining.contains(300))
    }

    @Test func listNamesTheOwnerAndManagerSelectsIt() throws {
        let harness = Self.harness()
        let table = harness.run(["list", "--manager", "podman", "--sizes", "none"])
        #expect(table.status == 0)
        #expect(table.stdout.contains("podman") && table.stdout.contains("c0ffee") && !table.stdout.contains("home.0"))
        let json = harness.run(["list", "--manager", "PODMAN", "--json"])
        #expect(json.stdout.contains(#""manager":"podman""#) || json.stdout.contains(#""manager": "podman""#))
    }

    @Test func anUnknownOwnerIsAUsageErrorListingTheKnownOnes() {
        let harness = Self.harness()
        for command in [["list"], ["delete", "--all", "--yes"]] {
            let result = harness.run(command + ["--manager", "lxc"])
            #expect(result.status == 64)
            #expect(
                result.stderr.contains(
                    "invalid manager 'lxc' for --manager (known: snapper, timeshift, btrbk, zfs-auto-snapshot, sanoid, syncoid, zrepl, proxmox-replication, znapzend, plain, docker, podman, machines, incus)"
                ))
            #expect(harness.remaining.contains(300))
        }
    }
}
