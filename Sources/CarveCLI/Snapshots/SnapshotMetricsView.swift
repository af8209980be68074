import CarveCore

/// `carve snapshots list --prometheus`: the listing as the Prometheus text exposition
/// format, for node_exporter's textfile collector. One series per filesystem, manager
/// and source subvolume; what is unknown is left out, never written as 0.
struct SnapshotMetricsView {
    /// One group of snapshots: those of one manager and source on one filesystem.
    struct Group {
        var filesystem: String
        var manager: String
        var source: String
        var count = 0
        var oldest: Date
        var newest: Date
        /// What deleting all of them frees; nil when unknown.
        var exclusive: UInt64?
    }

    /// A filesystem's size and available bytes, when they could be read.
    struct Space {
        var filesystem: String
        var usage: SpaceUsage
    }

    var groups: [Group] = []
    var spaces: [Space] = []
    var scraped: Date

    /// Groups the selected snapshots of each listing; reads each filesystem's space
    /// (`space` may fail: that filesystem's figures are then left out with a warning).
    init(
        _ listings: [VolumeListing], _ request: SnapshotListRequest, now: Date,
        space: (Filesystem) throws -> SpaceUsage, warn: (String) -> Void
    ) {
        scraped = now
        for listing in listings {
            for warning in listing.warnings { warn(warning) }
            let positions = request.outcome(in: listing, now: now).selected.filter { listing.subvolumes[$0].isSnapshot }
            groups += Self.groups(of: listing, at: positions)
            do {
                spaces.append(Space(filesystem: listing.filesystem.mountpoint, usage: try space(listing.filesystem)))
            } catch {
                warn("cannot read the space of \(listing.filesystem.mountpoint): \(error)")
            }
        }
    }

    private static func groups(of listing: VolumeListing, at positions: [Int]) -> [Group] {
        var order: [String] = []
        var byKey: [String: (group: Group, ids: [UInt64], sum: UInt64?)] = [:]
        for row in SnapshotRow.rows(at: positions, of: listing, timeZone: TimeZone(secondsFromGMT: 0)!) {
            let snapshot = row.snapshot
            let (manager, source) = (snapshot.metadata.manager.rawValue, row.source ?? "")
            let key = manager + "\u{0}" + source
            if byKey[key] == nil {
                order.append(key)
                let group = Group(
                    filesystem: listing.filesystem.mountpoint, manager: manager, source: source,
                    oldest: snapshot.created, newest: snapshot.created)
                byKey[key] = (group, [], 0)
            }
            byKey[key]!.group.count += 1
            byKey[key]!.group.oldest = min(byKey[key]!.group.oldest, snapshot.created)
            byKey[key]!.group.newest = max(byKey[key]!.group.newest, snapshot.created)
            byKey[key]!.ids.append(snapshot.id)
            byKey[key]!.sum = byKey[key]!.sum.flatMap { sum in snapshot.exclusive.map { sum + $0 } }
        }
        return order.map { key in
            var (group, ids, sum) = byKey[key]!
            // Exact sizes answer what the set frees together; quota sizes only per snapshot.
            group.exclusive = listing.exact.map { $0.reclaim(deleting: ids).data } ?? sum
            return group
        }
    }

    /// The exposition: each family's HELP and TYPE, then its samples.
    func rendered() -> String {
        var out = ""
        func family(_ name: String, _ help: String, _ samples: [(labels: [(String, String)], value: String)]) {
            guard !samples.isEmpty else { return }
            out += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n"
            for sample in samples { out += name + Self.labels(sample.labels) + " " + sample.value + "\n" }
        }
        func perGroup(_ value: (Group) -> String?) -> [(labels: [(String, String)], value: String)] {
            groups.compactMap { group in
                value(group).map {
                    ([("filesystem", group.filesystem), ("manager", group.manager), ("source", group.source)], $0)
                }
            }
        }
        family("carve_snapshots", "Snapshots by filesystem, manager and source subvolume.", perGroup { "\($0.count)" })
        family(
            "carve_snapshot_exclusive_bytes",
            "Bytes deleting all these snapshots frees (exact scan; with quotas the sum of exclusive bytes).",
            perGroup { $0.exclusive.map { "\($0)" } })
        family(
            "carve_snapshot_oldest_timestamp_seconds",
            "When the oldest of these snapshots was taken (its manager's date).",
            perGroup { Self.seconds($0.oldest) })
        family(
            "carve_snapshot_newest_timestamp_seconds",
            "When the newest of these snapshots was taken (its manager's date).",
            perGroup { Self.seconds($0.newest) })
        family(
            "carve_filesystem_size_bytes", "Size of the filesystem, as df shows it.",
            spaces.map { ([("filesystem", $0.filesystem)], "\($0.usage.size)") })
        family(
            "carve_filesystem_available_bytes", "Bytes available to a new write, as df shows them.",
            spaces.map { ([("filesystem", $0.filesystem)], "\($0.usage.available)") })
        family(
            "carve_scrape_timestamp_seconds", "When carve read these figures.", [([], Self.seconds(scraped))])
        return out
    }

    /// Whole seconds since the epoch, rounded down.
    static func seconds(_ date: Date) -> String { "\(Int64(date.timeIntervalSince1970.rounded(.down)))" }

    /// `{name="value",...}`. A value is the name as tables show it (control characters,
    /// backslashes and bytes that are not UTF-8 as \xHH: valid UTF-8 on one line, and
    /// reversible), then escaped as the format requires: backslash and double quote.
    static func labels(_ pairs: [(String, String)]) -> String {
        guard !pairs.isEmpty else { return "" }
        return "{"
            + pairs.map { name, value in
                var escaped = ""
                for character in escapedForTable(value) {
                    if character == "\\" || character == "\"" { escaped.append("\\") }
                    escaped.append(character)
                }
                return "\(name)=\"\(escaped)\""
            }.joined(separator: ",") + "}"
    }
}
