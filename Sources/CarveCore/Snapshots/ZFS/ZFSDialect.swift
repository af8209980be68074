/// What the installed `zfs` and `zpool` can do, read once per run from their own usage
/// text rather than from a version string: OpenZFS 2.1–2.3 (Debian 12 and 13, Ubuntu) and
/// the zfs-fuse 0.7 Debian 12 ships (Solaris-era: no `list -p`, no `clones` property, no
/// `destroy -n`, no comma lists, a `holds` that needs a missing helper).
public struct ZFSDialect: Sendable, Hashable {
    /// `zfs list -p`: exact numbers in a listing (else `zfs get -H -p` is read instead).
    public var listParsable = false
    /// `zfs list -j` (OpenZFS 2.3).
    public var listJSON = false
    /// `zfs destroy -n -v -p`: a dry run that says what the set frees.
    public var destroyDryRun = false
    /// `zfs destroy fs@a,b,c`: several snapshots of a dataset in one call.
    public var snapshotLists = false
    /// `zfs holds -H` prints the tags.
    public var holdsScripted = false
    /// The `clones` property of a snapshot.
    public var clonesProperty = false
    /// `zpool list -p` and `zpool get -H -p`, with the `freeing` property of asynchronous destroy.
    public var poolParsable = false
    /// `zpool status -P`: devices by their full paths.
    public var poolStatusPaths = false

    public init() {}

    /// The dialect a `zfs` and `zpool` print these usages in: `zfs` and `zpool` run
    /// without arguments (each lists its commands with their options) and `zfs get`
    /// without arguments (which adds the table of properties).
    public static func detect(zfsUsage: String, getUsage: String, zpoolUsage: String) -> ZFSDialect {
        var dialect = ZFSDialect()
        let list = usageLines(zfsUsage, command: "list")
        dialect.listParsable = list.contains { options(of: $0).contains("p") }
        dialect.listJSON = list.contains { $0.containsText("[-j") || options(of: $0).contains("j") }
        let destroy = usageLines(zfsUsage, command: "destroy").filter { $0.contains("@") }
        dialect.snapshotLists = destroy.contains { $0.containsText("[,...]") }
        dialect.destroyDryRun = destroy.contains { options(of: $0).isSuperset(of: ["n", "v", "p"]) }
        dialect.holdsScripted = usageLines(zfsUsage, command: "holds").contains { options(of: $0).contains("H") }
        dialect.clonesProperty = getUsage.split(separator: "\n").contains { line in
            line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first == "clones"
        }
        dialect.poolParsable = usageLines(zpoolUsage, command: "list").contains { options(of: $0).contains("p") }
        dialect.poolStatusPaths = usageLines(zpoolUsage, command: "status").contains { options(of: $0).contains("P") }
        return dialect
    }

    /// The usage lines of one command: `\tlist [-Hp] …`.
    static func usageLines(_ usage: String, command: String) -> [Substring] {
        usage.split(separator: "\n").compactMap { line in
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            guard trimmed.hasPrefix(command + " ") || trimmed == command else { return nil }
            return trimmed.dropFirst(command.count)
        }
    }

    /// The single-letter flags of a usage line's option groups: `[-Hp] [-r|-d max]` gives
    /// H, p, r and d.
    static func options(of line: Substring) -> Set<Character> {
        var letters = Set<Character>()
        var rest = line[...]
        while let open = rest.firstIndex(of: "[") {
            guard let close = rest[open...].firstIndex(of: "]") else { break }
            let group = rest[rest.index(after: open)..<close]
            for alternative in group.split(separator: "|") where alternative.hasPrefix("-") {
                // `-o property[,...]` names one flag; `-Hp` several.
                let flags = alternative.dropFirst().prefix { $0 != " " }
                if flags.allSatisfy({ $0.isLetter }) { letters.formUnion(flags) }
            }
            rest = rest[rest.index(after: close)...]
        }
        return letters
    }

    /// The properties carve lists in this dialect.
    public var listedProperties: [String] {
        ZFSListOutput.properties.filter { clonesProperty || $0 != "clones" }
    }

    /// How the dialect is called in messages.
    public var name: String { listParsable ? "OpenZFS" : "zfs-fuse (Solaris-era zfs)" }
}
