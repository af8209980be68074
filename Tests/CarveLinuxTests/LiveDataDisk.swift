import CarveTestSupport
import Foundation

/// A real podman (btrfs storage driver, graph root on the loop btrfs at
/// `srv/podman/storage`, outside the default path, chosen with
/// CONTAINERS_STORAGE_CONF) with one imported image and one created container.
struct PodmanOnDisk {
    let environment: [String: String]
    let container = "carve-live"
    let image = "localhost/carve-tiny:1"

    init(_ disk: DeletionDisk) throws {
        let root = disk.disk.directory
        let graphRoot = disk.mountpoint + "/srv/podman/storage"
        try FileManager.default.createDirectory(atPath: graphRoot, withIntermediateDirectories: true)
        let configuration = """
            [storage]
            driver = "btrfs"
            graphroot = "\(graphRoot)"
            runroot = "\(root)/podman-run"
            """
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: root + "/storage.conf"))
        environment = ["CONTAINERS_STORAGE_CONF": root + "/storage.conf"]
        let tree = root + "/rootfs"
        try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: true)
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: tree + "/hello"))
        try Shell.check(["tar", "-C", tree, "-cf", root + "/rootfs.tar", "."])
        try podman(["import", root + "/rootfs.tar", image])
        try podman(["create", "--name", container, image, "/hello"])
    }

    @discardableResult
    func podman(_ arguments: [String]) throws -> Shell.Result {
        let result = try Shell.run(["podman"] + arguments, environment: environment)
        guard result.status == 0 else {
            throw RuntimeFailure("podman \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
        }
        return result
    }

    /// Removes the container and image, so nothing of podman's keeps the disk busy.
    func remove() {
        _ = try? Shell.run(["podman", "rm", "-f", container], environment: environment)
        _ = try? Shell.run(["podman", "rmi", "-f", image], environment: environment)
    }
}

extension DeletionDisk {
    /// Makes each directory of `path` below the mountpoint and snapshots `data` there
    /// (writable unless `readOnly`), as an engine's tools would.
    func snapshot(at path: String, readOnly: Bool = false) throws {
        let target = mountpoint + "/" + path
        try FileManager.default.createDirectory(
            atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Shell.check(
            ["btrfs", "subvolume", "snapshot"] + (readOnly ? ["-r"] : []) + [mountpoint + "/data", target])
    }

    /// The engines' layouts made by hand from their documentation (Docker's btrfs driver,
    /// rootless podman's graph root, systemd-nspawn's machines and an Incus pool):
    /// Docker, Incus and nspawn are not installed here.
    func makeEngineLayouts() throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: mountpoint + "/var/lib/docker/image/btrfs", withIntermediateDirectories: true)
        try snapshot(at: "var/lib/docker/btrfs/subvolumes/4f2a")
        try snapshot(at: "var/lib/docker/btrfs/subvolumes/4f2a-init")
        let rootless = mountpoint + "/home/user/.local/share/containers/storage"
        try fm.createDirectory(atPath: rootless + "/btrfs-layers", withIntermediateDirectories: true)
        try Data("[]".utf8).write(to: URL(fileURLWithPath: rootless + "/btrfs-layers/layers.json"))
        try snapshot(at: "home/user/.local/share/containers/storage/btrfs/subvolumes/9c1d")
        try snapshot(at: "var/lib/machines/web")
        try snapshot(at: "var/lib/machines/.#web.clone")
        try snapshot(at: "var/lib/incus/storage-pools/default/containers/c1")
        try snapshot(at: "var/lib/incus/storage-pools/default/containers-snapshots/c1/snap0", readOnly: true)
    }
}

struct RuntimeFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
