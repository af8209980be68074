import ArgumentParser
import CarveCore
import CarveLinux

/// What the shell completes for carve's arguments, shared by the commands so
/// that every DEVICE, filesystem PATH and SNAPSHOT argument completes alike:
/// `@Argument(help: "…", completion: .blockDevice) var device: String`.
extension CompletionKind {
    /// Block devices, disks and partitions, as lsblk lists them (`/dev/sda2`).
    public static var blockDevice: CompletionKind { .shellCommand("lsblk -rno PATH 2>/dev/null") }

    /// Mountpoints of mounted btrfs filesystems (`/`, `/home`), for filesystem PATH arguments.
    public static var btrfsMountpoint: CompletionKind {
        .shellCommand("findmnt -rn -t btrfs -o TARGET 2>/dev/null")
    }

    /// Snapshots: snapper's `CONFIG:NUMBER`, snapper snapshot paths, then directories.
    public static var snapshot: CompletionKind {
        .custom { _, _, prefix in SnapshotCompletion().candidates(for: prefix) }
    }
}

/// The candidates of `CompletionKind.snapshot`, read from snapper's configs and
/// the directory tree under the host root (a fixture directory in tests).
/// Completion must never fail loudly: whatever cannot be read is left out.
struct SnapshotCompletion {
    var host = HostRoot.system

    func candidates(for prefix: String) -> [String] {
        let snapper = snapperSnapshots()
        let names = snapper.map { "\($0.config):\($0.number)" }
        let paths = snapper.map(\.path)
        let all = prefix.hasPrefix("/") ? paths + directories(completing: prefix) : names + paths
        var seen = Set<String>()
        return all.filter { $0.hasPrefix(prefix) && seen.insert($0).inserted }
    }

    /// Every snapper snapshot: config name, number, and the path of its subvolume.
    func snapperSnapshots() -> [(config: String, number: Int, path: String)] {
        let configDirectory = host.snapperConfigs
        let configs = Files.names(in: configDirectory) ?? []
        return configs.sorted().flatMap { config -> [(config: String, number: Int, path: String)] in
            guard let subvolume = snapperSubvolume(configFile: configDirectory + "/" + config) else { return [] }
            let base = subvolume == "/" ? "/.snapshots" : subvolume + "/.snapshots"
            let entries = Files.names(in: host.path(base)) ?? []
            return entries.compactMap(Int.init).sorted().map { (config, $0, "\(base)/\($0)/snapshot") }
        }
    }

    /// The SUBVOLUME="…" setting of a snapper config file.
    func snapperSubvolume(configFile: String) -> String? {
        // Read as carve reads configs when it lists: a FIFO or a huge file must not hang a TAB.
        guard let data = try? MetadataFile.read(configFile, limit: SnapperConfig.maximumSize) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix("SUBVOLUME=") {
            let value = String(line.dropFirst("SUBVOLUME=".count)).trimming { "\"' ".contains($0) }
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// Directories whose path starts with `prefix`, each ending in `/` so the
    /// next TAB descends into it.
    func directories(completing prefix: String) -> [String] {
        let parent = prefix.hasSuffix("/") ? prefix : PathText.parent(of: prefix)
        let base = parent.hasSuffix("/") ? parent : parent + "/"
        let entries = Files.names(in: host.path(base)) ?? []
        return entries.sorted().compactMap { name in
            let path = base + name
            return Files.isDirectory(host.path(path)) ? path + "/" : nil
        }
    }
}
