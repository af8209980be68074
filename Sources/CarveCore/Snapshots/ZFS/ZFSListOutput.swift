/// Reads what `zfs list -H -p -o COLUMNS` (OpenZFS) and `zfs get -H -p -o
/// name,property,value PROPERTIES` (zfs-fuse) print: one dataset per line, its values
/// tab-separated in the order asked; or one property per line, a dataset's lines together.
/// `-` is ZFS's "none". Values are bytes and seconds since 1970 (`-p`). Read as bytes,
/// lines and fields found by their byte: ten thousand snapshots are a hundred thousand
/// lines of `zfs get`, and splitting them as Characters cost more than zfs-fuse took to
/// print them.
public enum ZFSListOutput {
    /// The properties carve asks for, in the order of the columns of `zfs list`; the
    /// dialect drops those it lacks (see `ZFSDialect.listedProperties`). No user property:
    /// zfs-fuse reads those with a call per dataset, which took a listing of ten thousand
    /// snapshots from 2.3 s to 2.9 s; znapzend's is asked of the datasets alone
    /// (`ZFSCommandOutput.datasetFacts`). No `available` either: only a dataset has one, and
    /// `thin` asks it of the one dataset it works on.
    public static let properties = [
        "name", "type", "guid", "creation", "used", "referenced", "userrefs", "origin", "clones", "defer_destroy",
    ]

    /// znapzend's property, which its setup stores on each dataset it manages.
    public static let znapzendFormat = "org.znapzend:tsformat"

    /// The rows of `zfs list -H -p -o columns`.
    public static func parseList(_ text: String, columns: [String]) throws(ParseError) -> [ZFSDataset] {
        guard columns.first == "name" else { throw ParseError(tool: "zfs list", reason: "carve asks for name first") }
        let known = columns.map { Property(rawValue: $0) }
        var datasets: [ZFSDataset] = []
        try ByteLines.forEach(text, fields: columns.count) { number, fields throws(ParseError) in
            guard fields.count == columns.count else {
                throw ParseError(
                    tool: "zfs list",
                    reason: "line \(number) has \(fields.count) fields, not the \(columns.count) asked for")
            }
            var builder = Builder(name: ByteLines.string(fields[0]))
            for index in 1..<columns.count {
                if let property = known[index] { try builder.set(property, fields[index]) }
            }
            datasets.append(try builder.dataset())
        }
        return datasets
    }

    /// The rows of `zfs get -H -p -o name,property,value`: `NAME\tPROPERTY\tVALUE`.
    public static func parseGet(_ text: String) throws(ParseError) -> [ZFSDataset] {
        var datasets: [ZFSDataset] = []
        var builder: Builder?
        var current: [UInt8] = []
        var seen = Set<[UInt8]>()
        try ByteLines.forEach(text, fields: 3) { number, fields throws(ParseError) in
            guard fields.count == 3, !fields[0].isEmpty else {
                throw ParseError(tool: "zfs get", reason: "line \(number) is not NAME, PROPERTY and VALUE")
            }
            if builder == nil || !fields[0].elementsEqual(current) {
                current = Array(fields[0])
                // One dataset's lines come together: a name seen before means a shuffled output.
                guard seen.insert(current).inserted else {
                    throw ParseError(
                        tool: "zfs get", reason: "line \(number): \(ByteLines.string(fields[0])) appears twice")
                }
                if let done = builder { datasets.append(try done.dataset()) }
                builder = Builder(name: ByteLines.string(fields[0]))
            }
            if let property = Property(bytes: fields[1]) { try builder?.set(property, fields[2]) }
        }
        if let done = builder { datasets.append(try done.dataset()) }
        return datasets
    }

    /// The properties carve reads, by the name ZFS gives them.
    enum Property: String, CaseIterable {
        case type, guid, creation, used, referenced, available, userrefs, origin, clones
        case deferDestroy = "defer_destroy"
        case znapzendFormat = "org.znapzend:tsformat"

        static let byBytes: [[UInt8]: Property] = Dictionary(
            uniqueKeysWithValues: allCases.map { (Array($0.rawValue.utf8), $0) })

        init?(bytes: UnsafeBufferPointer<UInt8>) {
            guard let known = Self.byBytes[Array(bytes)] else { return nil }
            self = known
        }
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

        mutating func set(_ property: Property, _ value: UnsafeBufferPointer<UInt8>) throws(ParseError) {
            func fail(_ what: String) -> ParseError {
                ParseError(
                    tool: "zfs", reason: "\(name): \(property.rawValue) '\(ByteLines.string(value))' is not \(what)")
            }
            let none = value.count == 1 && value[0] == UInt8(ascii: "-")
            switch property {
            case .type:
                guard let kind = ZFSDataset.Kind(rawValue: ByteLines.string(value)) else {
                    throw fail("a dataset type")
                }
                self.kind = kind
            case .guid:
                guard let guid = ByteLines.number(value) else { throw fail("a number") }
                made.guid = guid
            case .creation:
                guard let seconds = ByteLines.number(value), seconds < 1 << 62 else {
                    throw fail("seconds since 1970")
                }
                creation = Date(timeIntervalSince1970: TimeInterval(seconds))
            case .used, .referenced, .available:
                guard !none else { return }
                guard let bytes = ByteLines.number(value) else { throw fail("a byte count") }
                if property == .used { made.used = bytes }
                if property == .referenced { made.referenced = bytes }
                if property == .available { made.available = bytes }
            case .userrefs:
                guard !none else { return }
                guard let count = ByteLines.number(value), count < 1 << 31 else { throw fail("a count") }
                made.userrefs = Int(count)
            case .origin:
                made.origin = none ? nil : ByteLines.string(value)
            case .clones:
                made.clones =
                    none || value.isEmpty ? [] : ByteLines.string(value).split(separator: ",").map(String.init)
            case .deferDestroy:
                let text = ByteLines.string(value)
                guard ["on", "off", "-"].contains(text) else { throw fail("on or off") }
                made.deferDestroy = text == "on"
            case .znapzendFormat:
                made.znapzendFormat = none ? nil : ByteLines.string(value)
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

/// Lines and tab-separated fields of a tool's output, as bytes borrowed for one line.
enum ByteLines {
    /// Calls `body` with the number (from 1) and at most `fields` fields of each line that
    /// is not empty (the last field takes the rest of the line, tabs and all).
    static func forEach(
        _ text: String, fields limit: Int,
        _ body: (Int, [UnsafeBufferPointer<UInt8>]) throws(ParseError) -> Void
    ) throws(ParseError) {
        var copy = text
        let failure: ParseError? = copy.withUTF8 { bytes in
            var number = 0
            var start = 0
            var fields: [UnsafeBufferPointer<UInt8>] = []
            fields.reserveCapacity(limit)
            while start < bytes.count {
                var end = start
                while end < bytes.count && bytes[end] != 0x0A { end += 1 }
                number += 1
                if end > start {
                    fields.removeAll(keepingCapacity: true)
                    var from = start
                    for position in start..<end where bytes[position] == 0x09 && fields.count < limit - 1 {
                        fields.append(UnsafeBufferPointer(rebasing: bytes[from..<position]))
                        from = position + 1
                    }
                    fields.append(UnsafeBufferPointer(rebasing: bytes[from..<end]))
                    do throws(ParseError) { try body(number, fields) } catch { return error }
                }
                start = end + 1
            }
            return nil
        }
        if let failure { throw failure }
    }

    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String { ByteText.decode(UnsafeRawBufferPointer(bytes)) }

    /// A decimal number of digits alone; nil for anything else or one too large.
    static func number(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard !bytes.isEmpty, bytes.count <= 20 else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(byte - 0x30))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }
}
