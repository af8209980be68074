/// A ZFS pool's vdevs as `zpool status POOL` prints them in its `config:` section: one
/// line per vdev, each level indented two spaces more (the pool, then its top-level vdevs,
/// then their devices), and after the data vdevs the `logs`, `cache`, `spares`, `special`
/// and `dedup` sections at the pool's level (OpenZFS `zpool_main.c`, `print_status_config`;
/// zfs-fuse alike).
public struct ZFSPoolLayout: Sendable, Hashable {
    public struct Vdev: Sendable, Hashable {
        /// `mirror-0`, `raidz1-0`, or a device's name for a single-device vdev.
        public var name: String
        /// `mirror`, `raidz1`, `raidz2`, `raidz3`, `draid…`, or `disk` for one device.
        public var kind: String
        /// The devices in it (itself for a disk), as zpool names them.
        public var devices: [String]
        /// nil for a data vdev; else `logs`, `cache`, `spares`, `special` or `dedup`.
        public var section: String?
    }

    public var pool: String
    public var state: String?
    public var vdevs: [Vdev]

    /// The vdevs that hold the pool's data (no log, cache or spare).
    public var dataVdevs: [Vdev] { vdevs.filter { $0.section == nil } }

    static let sections: Set<String> = ["logs", "cache", "spares", "special", "dedup"]

    public static func parse(status text: String) throws(ParseError) -> ZFSPoolLayout {
        func fail(_ reason: String) -> ParseError { ParseError(tool: "zpool status", reason: reason) }
        var pool: String?
        var state: String?
        var vdevs: [Vdev] = []
        var section: String?
        var inConfig = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if !inConfig {
                if trimmed.hasPrefix("pool:") { pool = String(trimmed.dropFirst(5)).trimmingSpaces }
                if trimmed.hasPrefix("state:") { state = String(trimmed.dropFirst(6)).trimmingSpaces }
                if trimmed == "config:" { inConfig = true }
                continue
            }
            guard line.hasPrefix("\t") else {
                if !vdevs.isEmpty || trimmed.hasPrefix("errors:") { break } else { continue }
            }
            let body = line.dropFirst()
            let indent = body.prefix { $0 == " " }.count
            guard let name = body.dropFirst(indent).split(separator: " ").first.map(String.init) else { continue }
            if indent == 0 {
                if name == "NAME" { continue }
                if sections.contains(name) {
                    section = name
                } else if name != pool {
                    throw fail("\(name) is not the pool")
                }
                continue
            }
            if indent == 2 {
                vdevs.append(Vdev(name: name, kind: kind(of: name), devices: [], section: section))
                if vdevs[vdevs.count - 1].kind == "disk" { vdevs[vdevs.count - 1].devices = [name] }
            } else if indent >= 4, !vdevs.isEmpty {
                // Deeper levels (a `replacing-0` inside a mirror) are devices of the top-level vdev.
                if kind(of: name) == "disk" { vdevs[vdevs.count - 1].devices.append(name) }
            } else {
                throw fail("the config line of \(name) is indented \(indent) spaces")
            }
        }
        guard let pool else { throw fail("no pool: line") }
        guard !vdevs.isEmpty else { throw fail("no vdevs in the config of \(pool)") }
        return ZFSPoolLayout(pool: pool, state: state, vdevs: vdevs)
    }

    /// What a vdev's name says it is: OpenZFS names a group `TYPE-N`.
    static func kind(of name: String) -> String {
        for group in ["mirror", "raidz3", "raidz2", "raidz1", "raidz", "draid", "replacing", "spare"]
        where name.hasPrefix(group + "-") || (group == "draid" && name.hasPrefix("draid")) {
            return group == "raidz" ? "raidz1" : group
        }
        return "disk"
    }

    /// The vdev that holds `device` (a path, `/dev/sdb1`): by the path zpool names it by,
    /// or by its last component (zpool prints `sdb1` without `-P`).
    public func vdev(holding device: String) -> Vdev? {
        let base = device.split(separator: "/").last.map(String.init) ?? device
        return vdevs.first { vdev in
            vdev.devices.contains {
                $0 == device || $0 == base || ($0.split(separator: "/").last.map(String.init) == base)
            }
        }
    }

    /// `2 top-level vdevs: mirror-0 (sdb1, sdc1), sdd1; logs: sde1`.
    public var summary: String {
        func describe(_ vdev: Vdev) -> String {
            vdev.kind == "disk" ? vdev.name : "\(vdev.name) (\(vdev.devices.joined(separator: ", ")))"
        }
        let data = dataVdevs
        var text =
            "\(data.count) top-level vdev\(data.count == 1 ? "" : "s"): " + data.map(describe).joined(separator: ", ")
        var seen: [String] = []
        for vdev in vdevs { if let section = vdev.section, !seen.contains(section) { seen.append(section) } }
        for section in seen {
            text += "; \(section): " + vdevs.filter { $0.section == section }.map(describe).joined(separator: ", ")
        }
        return text
    }
}
