/// timeshift's btrfs-mode layout: `timeshift-btrfs/snapshots/YYYY-MM-DD_HH-MM-SS/`
/// holding the subvolumes `@`, `@home`… and an `info.json` with `created` (Unix
/// seconds, as a string), `tags` ("O B H D W M", space separated) and `comments`.
public enum TimeshiftInfo {
    public typealias Failure = OwnerFileFailure

    public static let maximumSize = 256 * 1024

    public static func parse(_ data: [UInt8], name: String) throws(Failure) -> ManagerMetadata {
        guard data.count <= maximumSize else { throw Failure(reason: "larger than \(maximumSize) bytes") }
        let object: JSONDocument
        do { object = try JSONDocument.parse(data) } catch { throw Failure(reason: "not valid JSON") }
        guard object.isObject else { throw Failure(reason: "not a JSON object") }
        let created: Date
        switch object["created"] {
        case .string(let text)?:
            guard let seconds = Int64(text.trimmingSpaces) else {
                throw Failure(reason: "\"created\" is not Unix seconds")
            }
            created = Date(timeIntervalSince1970: TimeInterval(seconds))
        case .number(let text)?:
            guard let seconds = Double(text), abs(seconds) < 253_402_300_800 else {
                throw Failure(reason: "\"created\" is not Unix seconds")
            }
            created = Date(timeIntervalSince1970: seconds)
        default:
            throw Failure(reason: "no \"created\"")
        }
        let tags = object["tags"]?.string?.split(separator: " ").map(String.init) ?? []
        let comments = object["comments"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        return ManagerMetadata(manager: .timeshift, name: name, description: comments, tags: tags, created: created)
    }

    /// The creation time in a snapshot directory's name ("2026-11-01_12-00-01", local time).
    public static func date(fromName name: String, timeZone: TimeZone) -> Date? {
        var scanner = DigitScanner(Array(name.utf8))
        guard let year = scanner.number(digits: 4), scanner.take("-"), let month = scanner.number(digits: 2),
            scanner.take("-"), let day = scanner.number(digits: 2), scanner.take("_"),
            let hour = scanner.number(digits: 2), scanner.take("-"), let minute = scanner.number(digits: 2),
            scanner.take("-"), let second = scanner.number(digits: 2), scanner.atEnd
        else { return nil }
        return localDate(year: year, month: month, day: day, hour: hour, minute: minute, second: second, in: timeZone)
    }
}

public func localDate(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, in zone: TimeZone) -> Date?
{
    guard (1...12).contains(month), (1...DateArgument.daysIn(month: month, year: year)).contains(day),
        hour < 24, minute < 60, second < 60
    else { return nil }
    return CivilTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second).date(in: zone)
}
