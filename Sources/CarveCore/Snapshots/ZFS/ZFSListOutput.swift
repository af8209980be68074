/// Reads what `zfs list -H -p -o COLUMNS` (OpenZFS) and `zfs get -H -p -o
/// name,property,value PROPERTIES` (zfs-fuse) print: one dataset per line, its values
/// tab-separated in the order asked; or one property per line, a dataset's lines together.
/// `-` is ZFS's "none". Values are bytes and seconds since 1970 (`-p`).
public enum ZFSListOutput {
    /// The properties carve asks for, in the order of the columns of `zfs list`; the
    /// dialect drops those it lacks (see `ZFSDialect.listedProperties`).
    public static let properties = [
        "name", "type", "guid", "creation", "used", "referenced", "available", "userrefs", "origin", "clones",
        "defer_destroy", "org.znapzend:tsformat",
    ]

    /// The rows of `zfs list -H -p -o columns`.
    public static func parseList(_ text: String, columns: [String]) throws(ParseError) -> [ZFSDataset] {
        guard columns.first == "name" else { throw ParseError(tool: "zfs list", reason: "carve asks for name first") }
        var datasets: [ZFSDataset] = []
        var number = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            if line.isEmpty { continue }
            // A user property's value is last and may hold a tab: it takes the rest.
            let fields = line.split(separator: "\t", maxSplits: columns.count - 1, omittingEmptySubsequences: false)
            guard fields.count == columns.count else {
                throw ParseError(
                    tool: "zfs list",
                    reason: "line \(number) has \(fields.count) fields, not the \(columns.count) asked for")
            }
            var builder = Builder(name: String(fields[0]))
            for index in 1..<columns.count { try builder.set(columns[index], fields[index]) }
            datasets.append(try builder.dataset())
        }
        return datasets
    }

    /// The rows of `zfs get -H -p -o name,property,value`: `NAME\tPROPERTY\tVALUE`.
    public static func parseGet(_ text: String) throws(ParseError) -> [ZFSDataset] {
        var datasets: [ZFSDataset] = []
        var builder: Builder?
        var seen = Set<Substring>()
        var number = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            if line.isEmpty { continue }
            let fields = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, !fields[0].isEmpty else {
                throw ParseError(tool: "zfs get", reason: "line \(number) is not NAME, PROPERTY and VALUE")
            }
            if builder.map({ $0.name != fields[0] }) ?? true {
                // One dataset's lines come together: a name seen before means a shuffled output.
                guard seen.insert(fields[0]).inserted else {
                    throw ParseError(tool: "zfs get", reason: "line \(number): \(fields[0]) appears twice")
                }
                if let done = builder { datasets.append(try done.dataset()) }
                builder = Builder(name: String(fields[0]))
            }
            try builder?.set(String(fields[1]), fields[2])
        }
        if let done = builder { datasets.append(try done.dataset()) }
        return datasets
    }

    /// Gathers one dataset's properties, each checked as it comes.
    struct Builder {
        let name: String
        var kind: ZFSDataset.Kind?
        var creation: Date?
        var made: ZFSDataset

        init(name: String) {
            self.name = name
            made = ZFSDataset(name: name, kind: .filesystem, creation: Date(timeIntervalSince1970: 0))
        }

        mutating func set(_ property: String, _ value: Substring) throws(ParseError) {
            func fail(_ what: String) -> ParseError {
                ParseError(tool: "zfs", reason: "\(name): \(property) '\(value)' is not \(what)")
            }
            let none = value == "-"
            switch property {
            case "type":
                guard let kind = ZFSDataset.Kind(rawValue: String(value)) else { throw fail("a dataset type") }
                self.kind = kind
            case "guid":
                guard let guid = UInt64(value) else { throw fail("a number") }
                made.guid = guid
            case "creation":
                guard let seconds = Int64(value), seconds >= 0 else { throw fail("seconds since 1970") }
                creation = Date(timeIntervalSince1970: TimeInterval(seconds))
            case "used", "referenced", "available":
                guard !none else { return }
                guard let bytes = UInt64(value) else { throw fail("a byte count") }
                if property == "used" { made.used = bytes }
                if property == "referenced" { made.referenced = bytes }
                if property == "available" { made.available = bytes }
            case "userrefs":
                guard !none else { return }
                guard let count = Int(value), count >= 0 else { throw fail("a count") }
                made.userrefs = count
            case "origin":
                made.origin = none ? nil : String(value)
            case "clones":
                made.clones = none || value.isEmpty ? [] : value.split(separator: ",").map(String.init)
            case "defer_destroy":
                guard ["on", "off", "-"].contains(value) else { throw fail("on or off") }
                made.deferDestroy = value == "on"
            case "org.znapzend:tsformat":
                made.znapzendFormat = none ? nil : String(value)
            default:
                break
            }
        }

        func dataset() throws(ParseError) -> ZFSDataset {
            guard let kind else {
                // A bookmark or anything else carve does not list is not asked for.
                throw ParseError(tool: "zfs", reason: "\(name): no type")
            }
            guard let creation else { throw ParseError(tool: "zfs", reason: "\(name): no creation time") }
            guard (kind == .snapshot) == name.contains("@"), !name.hasPrefix("/"), !name.isEmpty else {
                throw ParseError(tool: "zfs", reason: "\(name): not a \(kind.rawValue) name")
            }
            var result = made
            result.kind = kind
            result.creation = creation
            return result
        }
    }
}
