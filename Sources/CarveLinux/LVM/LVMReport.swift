import Glibc
import CarveCore

/// One logical volume as `lvs --reportformat json` reports it, with the fields a
/// snapshot listing needs (`LVMReport.fields`).
struct LogicalVolume: Sendable, Hashable {
    var name: String
    var group: String
    /// lv_attr's ten characters: [0] volume type (V thin volume, t thin pool), [1] w/r permissions.
    var attributes: String
    /// The LV it is a snapshot of; empty for none.
    var origin: String
    /// The thin pool it lives in; empty for none.
    var pool: String
    var created: Date
    var size: UInt64
    /// Percent of the volume's size the pool has allocated to it.
    var dataPercent: Double?
    var uuid: String

    var isThinVolume: Bool { attributes.first == "V" }
    var isReadOnly: Bool { attributes.dropFirst().first == "r" }
}

/// Reads the JSON lvm2's `lvs` writes: {"report": [{"lv": [{"lv_name": "…", …}]}]},
/// every value a string (numbers too, with `--units b --nosuffix`).
enum LVMReport {
    /// The `-o` fields carve asks for, in the names lvm2 reports them by.
    static let fields = [
        "lv_name", "vg_name", "lv_attr", "origin", "pool_lv", "lv_time", "lv_size", "data_percent", "lv_uuid",
    ]

    /// The arguments of the `lvs` run, with lv_time in a fixed format whatever lvm.conf says.
    static let arguments = [
        "lvs", "--reportformat", "json", "--units", "b", "--nosuffix",
        "--config", "report/time_format=\"%Y-%m-%d %H:%M:%S %z\"", "-o", fields.joined(separator: ","),
    ]

    static func parse(_ text: String) throws(ParseError) -> [LogicalVolume] {
        func fail(_ reason: String) -> ParseError {
            ParseError(tool: "lvs --reportformat json", reason: "not the report lvm2 writes (\(reason))")
        }
        let document: JSONDocument
        do { document = try JSONDocument.parse(Array(text.utf8)) } catch { throw fail(error.description) }
        guard let sections = document["report"]?.array else { throw fail("no report") }
        var volumes: [LogicalVolume] = []
        for section in sections {
            guard section.isObject else { throw fail("a report section is not an object") }
            guard let lv = section["lv"] else { continue }
            guard let rows = lv.array else { throw fail("lv is not a list") }
            for row in rows {
                guard case .object(let members) = row else { throw fail("a volume is not an object") }
                var fields: [String: String] = [:]
                for (key, value) in members {
                    guard let text = value.string else { throw fail("\(key) is not a string") }
                    fields[key] = text
                }
                volumes.append(try volume(fields))
            }
        }
        return volumes
    }

    private static func volume(_ fields: [String: String]) throws(ParseError) -> LogicalVolume {
        func field(_ name: String) throws(ParseError) -> String {
            guard let value = fields[name] else { throw ParseError(tool: "lvs", reason: "a volume without \(name)") }
            return value
        }
        let name = try field("lv_name"), attributes = try field("lv_attr")
        guard attributes.count == 10 || attributes.count == 9 else {
            throw ParseError(tool: "lvs", reason: "\(name): lv_attr '\(attributes)' is not lvm2's attribute string")
        }
        guard let size = UInt64(try field("lv_size")) else {
            throw ParseError(tool: "lvs", reason: "\(name): lv_size '\(fields["lv_size"] ?? "")' is not a byte count")
        }
        let percent = try field("data_percent")
        guard percent.isEmpty || Double(percent).map({ (0...100).contains($0) }) == true else {
            throw ParseError(tool: "lvs", reason: "\(name): data_percent '\(percent)' is not a percentage")
        }
        return LogicalVolume(
            name: name, group: try field("vg_name"), attributes: attributes, origin: try field("origin"),
            pool: try field("pool_lv"), created: try time(try field("lv_time"), of: name), size: size,
            dataPercent: Double(percent), uuid: try field("lv_uuid"))
    }

    /// "2026-11-01 12:00:00 +0100", as the time format carve passes asks.
    static func time(_ text: String, of name: String) throws(ParseError) -> Date {
        let parts = text.split(separator: " ")
        let date = parts.first?.split(separator: "-").compactMap { Int($0) } ?? []
        let clock = parts.count > 1 ? parts[1].split(separator: ":").compactMap { Int($0) } : []
        let zone = parts.count > 2 ? parts[2] : ""
        guard parts.count == 3, date.count == 3, clock.count == 3, zone.count == 5,
            zone.first == "+" || zone.first == "-",
            let offset = Int(zone.dropFirst()),
            let fixed = TimeZone(
                secondsFromGMT: (zone.first == "-" ? -1 : 1) * (offset / 100 * 3600 + offset % 100 * 60)),
            let created = localDate(
                year: date[0], month: date[1], day: date[2], hour: clock[0], minute: clock[1], second: clock[2],
                in: fixed)
        else { throw ParseError(tool: "lvs", reason: "\(name): lv_time '\(text)' is not a time") }
        return created
    }
}
