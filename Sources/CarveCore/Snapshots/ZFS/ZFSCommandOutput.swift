/// The smaller outputs of `zfs` and `zpool` carve reads, each in the scriptable form
/// OpenZFS documents (`-H`: tab-separated, no header; `-p`: exact numbers).
public enum ZFSCommandOutput {
    /// Calls `body` with the number (from 1) and the tab-separated fields (at most
    /// `fields`: the last takes the rest) of each line that is not empty.
    static func eachLine(
        _ text: String, fields limit: Int, _ body: (Int, [Substring]) throws(ParseError) -> Void
    ) throws(ParseError) {
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where !line.isEmpty {
            try body(index + 1, line.split(separator: "\t", maxSplits: limit - 1, omittingEmptySubsequences: false))
        }
    }

    /// `zfs holds -H SNAPSHOT…`: `NAME\tTAG\tTIMESTAMP` per hold (`zfs_main.c`,
    /// `print_holds`); the tags of each snapshot, in the order printed.
    public static func holds(_ text: String) throws(ParseError) -> [String: [String]] {
        var tags: [String: [String]] = [:]
        try eachLine(text, fields: 4) { number, fields throws(ParseError) in
            guard fields.count == 3, fields[0].contains("@"), !fields[1].isEmpty else {
                throw ParseError(tool: "zfs holds -H", reason: "line \(number) is not NAME, TAG and TIMESTAMP")
            }
            tags[String(fields[0]), default: []].append(String(fields[1]))
        }
        return tags
    }

    /// What `zfs destroy -n -v -p DATASET@a,b,…` says it would do: `destroy\tNAME` per
    /// snapshot and one `reclaim\tBYTES` (`zfs_main.c`, `zfs_do_destroy`).
    public struct DryRun: Sendable, Hashable {
        public var destroyed: [String]
        /// Bytes the whole set frees together (`lzc_snaprange_space` over each run of
        /// consecutive snapshots: exact for the set).
        public var reclaim: UInt64
    }

    public static func destroyDryRun(_ text: String) throws(ParseError) -> DryRun {
        var destroyed: [String] = []
        var reclaim: UInt64?
        try eachLine(text, fields: 2) { number, fields throws(ParseError) in
            switch fields.count == 2 ? fields[0] : "" {
            case "destroy": destroyed.append(String(fields[1]))
            case "reclaim":
                guard reclaim == nil, let bytes = UInt64(fields[1]) else {
                    throw ParseError(tool: "zfs destroy -nvp", reason: "line \(number): a second or bad reclaim")
                }
                reclaim = bytes
            default:
                throw ParseError(tool: "zfs destroy -nvp", reason: "line \(number) is neither destroy nor reclaim")
            }
        }
        guard let reclaim else { throw ParseError(tool: "zfs destroy -nvp", reason: "no reclaim line") }
        return DryRun(destroyed: destroyed, reclaim: reclaim)
    }

    /// One imported pool as `zpool list -H -o name,guid,health` reports it.
    public struct Pool: Sendable, Hashable {
        public var name: String
        public var guid: String
        /// ONLINE, DEGRADED, FAULTED, OFFLINE, UNAVAIL, REMOVED or SUSPENDED.
        public var health: String
        /// True when its datasets can be read: a suspended or faulted pool makes `zfs`
        /// wait or fail, so it is left out of a listing.
        public var isReadable: Bool { health == "ONLINE" || health == "DEGRADED" }
    }

    public static func pools(_ text: String) throws(ParseError) -> [Pool] {
        var pools: [Pool] = []
        try eachLine(text, fields: 4) { number, fields throws(ParseError) in
            guard fields.count == 3, !fields[0].isEmpty, !fields[0].contains("/"), UInt64(fields[1]) != nil,
                !fields[2].isEmpty
            else { throw ParseError(tool: "zpool list -H", reason: "line \(number) is not NAME, GUID and HEALTH") }
            pools.append(Pool(name: String(fields[0]), guid: String(fields[1]), health: String(fields[2])))
        }
        return pools
    }

    /// What `zfs list -H -t filesystem,volume -o name,origin,org.znapzend:tsformat` says
    /// of the datasets: each one's origin (a clone's; zfs-fuse has no `clones` property, so
    /// a snapshot's clones are the datasets whose origin it is) and znapzend's format.
    public struct DatasetFacts: Sendable, Hashable {
        public var name: String
        public var origin: String?
        public var znapzendFormat: String?
    }

    public static let datasetColumns = "name,origin," + ZFSListOutput.znapzendFormat

    public static func datasetFacts(_ text: String) throws(ParseError) -> [DatasetFacts] {
        var facts: [DatasetFacts] = []
        try eachLine(text, fields: 3) { number, fields throws(ParseError) in
            guard fields.count == 3, !fields[0].isEmpty, !fields[0].contains("@"),
                fields[1] == "-" || fields[1].contains("@")
            else {
                throw ParseError(tool: "zfs list -o \(datasetColumns)", reason: "line \(number) is not a dataset's")
            }
            facts.append(
                DatasetFacts(
                    name: String(fields[0]), origin: fields[1] == "-" ? nil : String(fields[1]),
                    znapzendFormat: fields[2] == "-" ? nil : String(fields[2])))
        }
        return facts
    }

    /// `zpool get -H -p -o value freeing POOL`: the bytes a destroy has yet to free.
    public static func freeing(_ text: String) throws(ParseError) -> UInt64 {
        let value = text.split(separator: "\n").first.map(String.init) ?? ""
        guard let bytes = UInt64(value) else {
            throw ParseError(tool: "zpool get freeing", reason: "'\(value)' is not a byte count")
        }
        return bytes
    }
}
