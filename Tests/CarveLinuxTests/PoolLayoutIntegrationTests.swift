@testable import CarveLinux
import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// An Incus pool on a btrfs of its own, mounted at a mountpoint of its own (not under
/// storage-pools/), and a machines btrfs listed through a second mount: their volumes
/// are the engines', kept from every deletion; a btrfs directory merely named
/// `containers` beside them stays plain. Incus is not installed here, so the pool is
/// made with btrfs-progs as Incus's btrfs driver makes it (github.com/lxc/incus,
/// internal/server/storage): `createStorageStructure` (backend.go) makes each of
/// `BaseDirectories` (drivers/volume.go) at the pool's root, 0711 or 0700; an image is
/// `btrfs subvolume create images/FP` (`CreateVolume`, driver_btrfs_volumes.go), filled,
/// then `btrfs property set -f -ts … ro true`; an instance from it `btrfs subvolume
/// snapshot images/FP containers/NAME` (`CreateVolumeFromCopy` → `snapshotSubvolume`,
/// driver_btrfs_utils.go) holding `backup.yaml` (`UpdateBackupFile`); a snapshot
/// `mkdir containers-snapshots/NAME` (`CreateParentSnapshotDirIfMissing`, 0700), then
/// `btrfs subvolume snapshot` and the same `property set` (`CreateVolumeSnapshot`).
@Suite(.serialized, .integration(needing: "btrfs"))
struct PoolLayoutIntegrationTests {
    static let image = "images/4c5e9a0b7d"
    static let poolVolumes = [
        image, "containers/c1", "containers-snapshots/c1/snap0", "containers-snapshots/c1/snap1",
        "custom/default_data", "custom-snapshots/default_data/snap0",
    ]

    func btrfs(_ arguments: [String]) throws { try Shell.check(["btrfs", "-q"] + arguments) }

    func readOnly(_ path: String) throws { try btrfs(["property", "set", "-f", "-ts", path, "ro", "true"]) }

    /// The pool at the filesystem's top, built as the driver builds it.
    func makePool(at root: String) throws {
        let fm = FileManager.default
        for (name, mode) in [
            ("buckets", 0o711), ("containers", 0o711), ("containers-snapshots", 0o711), ("custom", 0o700),
            ("custom-snapshots", 0o700), ("images", 0o700), ("virtual-machines", 0o700),
            ("virtual-machines-snapshots", 0o700),
        ] {
            try fm.createDirectory(atPath: root + "/" + name, withIntermediateDirectories: false)
            try fm.setAttributes([.posixPermissions: mode], ofItemAtPath: root + "/" + name)
        }
        let image = root + "/" + Self.image
        try btrfs(["subvolume", "create", image])
        try fm.createDirectory(atPath: image + "/rootfs/etc", withIntermediateDirectories: true)
        try Data("architecture: x86_64\n".utf8).write(to: URL(fileURLWithPath: image + "/metadata.yaml"))
        try readOnly(image)
        try btrfs(["subvolume", "snapshot", image, root + "/containers/c1"])
        try Data("container:\n  name: c1\n".utf8).write(to: URL(fileURLWithPath: root + "/containers/c1/backup.yaml"))
        try fm.createDirectory(
            atPath: root + "/containers-snapshots/c1", withIntermediateDirectories: false,
            attributes: [.posixPermissions: 0o700])
        for snapshot in ["snap0", "snap1"] {
            try btrfs(["subvolume", "snapshot", root + "/containers/c1", root + "/containers-snapshots/c1/" + snapshot])
            try readOnly(root + "/containers-snapshots/c1/" + snapshot)
        }
        try btrfs(["subvolume", "create", root + "/custom/default_data"])
        try fm.createDirectory(atPath: root + "/custom-snapshots/default_data", withIntermediateDirectories: false)
        try btrfs([
            "subvolume", "snapshot", root + "/custom/default_data", root + "/custom-snapshots/default_data/snap0",
        ])
        try readOnly(root + "/custom-snapshots/default_data/snap0")
    }

    /// path from the top level → manager, from the binary's JSON listing.
    func managers(_ disk: DeletionDisk) throws -> [String: String] {
        let listed = try disk.carve(["snapshots", "list", disk.mountpoint, "--sizes", "none", "--json"])
        let rows = (try DeletionDisk.json(listed)["snapshots"] as? [[String: Any]]) ?? []
        return Dictionary(
            rows.compactMap { row -> (String, String)? in
                guard let path = row["path"] as? String, let manager = row["manager"] as? String else { return nil }
                return (String(path.dropFirst(disk.mountpoint.count + 1)), manager)
            }, uniquingKeysWith: { first, _ in first })
    }

    @Test func anIncusPoolMountedAtItsOwnMountpointIsIncusAndKept() throws {
        try withDeletionDisk { disk in
            try makePool(at: disk.mountpoint)
            // The lookalike: a plain directory named containers (and images) with snapshots in it.
            let home = disk.mountpoint + "/home"
            try FileManager.default.createDirectory(atPath: home + "/images", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: home + "/containers", withIntermediateDirectories: true)
            try btrfs(["subvolume", "snapshot", "-r", disk.mountpoint + "/data", home + "/containers/web"])
            let listed = try managers(disk)
            for path in Self.poolVolumes {
                #expect(listed[path] == "incus", "\(path): \(listed)")
            }
            #expect(listed["home/containers/web"] == "plain", "\(listed)")
            let before = try disk.subvolumes()
            #expect(before.count == Self.poolVolumes.count + 2, "\(before)")
            let bulk = try disk.carve(["snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--yes"])
            #expect(bulk.status == 0, "\(bulk.stderr)")
            #expect(bulk.stderr.contains("owned by incus: delete it with incus (or lxc)"), "\(bulk.stderr)")
            #expect(try disk.subvolumes() == before.filter { $0 != "home/containers/web" })
            let named = try disk.carve([
                "snapshots", "delete", disk.mountpoint + "/containers-snapshots/c1/snap0", "--yes",
            ])
            #expect(named.status != 0 && (named.stdout + named.stderr).contains("owned by incus"), "\(named.stderr)")
            #expect(try disk.subvolumes() == before.filter { $0 != "home/containers/web" })
        }
    }

    /// systemd's machines btrfs (`/var/lib/machines.raw`'s layout: images at its top),
    /// mounted at a host tree's var/lib/machines and, first, elsewhere: images made as
    /// machinectl makes them (`import-tar`: a subvolume; `clone`: a writable snapshot
    /// beside it; `read-only`: the ro property) are machines' however the listing reaches them.
    @Test func machineImagesAreRecognisedThroughAnotherMount() throws {
        let disk = try LoopDisk(size: "256M")
        defer { disk.cleanup() }
        try Shell.check(["mkfs.btrfs", "-q", "-f", disk.device])
        let top = try disk.mount(disk.device, name: "top")
        try btrfs(["subvolume", "create", top + "/web"])
        try btrfs(["subvolume", "snapshot", top + "/web", top + "/web-clone"])
        try btrfs(["subvolume", "snapshot", top + "/web", top + "/web-ro"])
        try readOnly(top + "/web-ro")
        let host = disk.directory + "/host"
        try disk.mount(disk.device, name: "host/var/lib/machines")
        func listed(host: HostRoot) throws -> [String: SnapshotManager] {
            let backend = SnapshotBackendRegistry.classifying(
                BtrfsSnapshotBackend(host: host, mountTable: ProcMountTable(host: .system), isRoot: true), host: host)
            let listing = try backend.subvolumes(of: try backend.filesystem(containing: top), sizes: .none)
            #expect(listing.subvolumes.allSatisfy { $0.mountedPath?.hasPrefix(top + "/") == true })
            return Dictionary(uniqueKeysWithValues: listing.subvolumes.map { ($0.path, $0.metadata.manager) })
        }
        #expect(try listed(host: HostRoot(host)) == ["web": .machines, "web-clone": .machines, "web-ro": .machines])
        // The same btrfs, where no image directory lies on it: plain, as before.
        let elsewhere = try Integration.makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        #expect(try listed(host: HostRoot(elsewhere)) == ["web": .plain, "web-clone": .plain, "web-ro": .plain])
    }
}
