import CarveTestSupport
import Foundation
import Testing

/// A snapper config of the test's own on `source` (a subvolume of the disk), made by
/// the installed snapper with `set` applied (e.g. ["UNIQUE_NUMBERS=yes"]). Afterwards
/// the `.snapshots/N` a test left without its snapshot are removed (snapper's
/// delete-config trips on them), the config is deleted, and it is checked gone from
/// /etc/snapper/configs and SNAPPER_CONFIGS: other configs are never touched.
func withSnapperConfig(
    on disk: DeletionDisk, source: String = "data", set: [String] = [],
    _ body: (String) throws -> Void
) throws {
    let config = "carvetest\(UInt32.random(in: 0..<UInt32.max))"
    try Shell.check(["snapper", "--no-dbus", "-c", config, "create-config", disk.mountpoint + "/" + source])
    defer { deleteSnapperConfig(config, snapshots: disk.mountpoint + "/" + source + "/.snapshots") }
    if !set.isEmpty { try Shell.check(["snapper", "--no-dbus", "-c", config, "set-config"] + set) }
    try body(config)
}

private func deleteSnapperConfig(_ config: String, snapshots: String) {
    for name in (try? FileManager.default.contentsOfDirectory(atPath: snapshots)) ?? []
    where !isSubvolume(snapshots + "/" + name + "/snapshot") {
        try? FileManager.default.removeItem(atPath: snapshots + "/" + name)
    }
    let deleted = try? Shell.run(["snapper", "--no-dbus", "-c", config, "delete-config"])
    #expect(deleted?.status == 0, "snapper delete-config: \(deleted?.stderr ?? "did not run")")
    let file = "/etc/snapper/configs/" + config
    let listed =
        (try? String(contentsOfFile: "/etc/default/snapper", encoding: .utf8))?
        .split(separator: "\n").first { $0.hasPrefix("SNAPPER_CONFIGS=") }.map(String.init) ?? ""
    #expect(!FileManager.default.fileExists(atPath: file), "\(file) is left")
    #expect(!listed.contains(config), "SNAPPER_CONFIGS still lists \(config): \(listed)")
}

/// A btrfs subvolume's root directory (inode 256), not followed through a symlink.
func isSubvolume(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR && info.st_ino == 256
}
