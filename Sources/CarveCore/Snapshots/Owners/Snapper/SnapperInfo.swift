/// snapper's per-snapshot `.snapshots/N/info.xml`: type, number, date (UTC,
/// "YYYY-MM-DD HH:MM:SS"), description, cleanup, pre_num and userdata.
/// `important` is the userdata key snapper's cleanup honours (`important=yes`).
public enum SnapperInfo {
    public typealias Failure = OwnerFileFailure

    /// info.xml files are a few hundred bytes; anything past this is not snapper's.
    public static let maximumSize = 64 * 1024

    public static func parse(_ data: [UInt8], config: String? = nil) throws(Failure) -> ManagerMetadata {
        guard data.count <= maximumSize else { throw Failure(reason: "larger than \(maximumSize) bytes") }
        guard let text = String(validating: data, as: UTF8.self) else { throw Failure(reason: "not UTF-8") }
        let root: MiniXML.Element
        do { root = try MiniXML.parse(text) } catch { throw Failure(reason: "not well-formed XML: \(error.reason)") }
        guard root.name == "snapshot" else { throw Failure(reason: "root element is <\(root.name)>, not <snapshot>") }

        guard let type = root.child("type")?.text.trimmingSpaces, ["single", "pre", "post"].contains(type) else {
            throw Failure(reason: "no <type> single, pre or post")
        }
        guard let numText = root.child("num")?.text.trimmingSpaces, let number = Int(numText), number >= 0 else {
            throw Failure(reason: "no valid <num>")
        }
        guard let dateText = root.child("date")?.text.trimmingSpaces, let date = parseDate(dateText) else {
            throw Failure(reason: "no valid <date> (expected YYYY-MM-DD HH:MM:SS in UTC)")
        }
        var preNumber: Int?
        if let preText = root.child("pre_num")?.text.trimmingSpaces {
            guard let value = Int(preText), value >= 0 else { throw Failure(reason: "invalid <pre_num> '\(preText)'") }
            preNumber = value
        }
        var userdata: [String: String] = [:]
        for entry in root.all("userdata") {
            guard let key = entry.child("key")?.text, !key.isEmpty else {
                throw Failure(reason: "<userdata> without a <key>")
            }
            userdata[key] = entry.child("value")?.text ?? ""
        }
        let description = root.child("description")?.text
        let cleanup = root.child("cleanup")?.text.trimmingSpaces
        return ManagerMetadata(
            manager: .snapper, config: config, number: number, type: type,
            description: description?.isEmpty == false ? description : nil,
            cleanup: cleanup?.isEmpty == false ? cleanup : nil, preNumber: preNumber, userdata: userdata,
            important: userdata["important"] == "yes", created: date
        )
    }

    /// "2026-11-01 12:00:00", always UTC in info.xml.
    static func parseDate(_ text: String) -> Date? {
        var scanner = DigitScanner(Array(text.utf8))
        guard let year = scanner.number(digits: 4), scanner.take("-"), let month = scanner.number(digits: 2),
            scanner.take("-"), let day = scanner.number(digits: 2), scanner.take(" "),
            let hour = scanner.number(digits: 2), scanner.take(":"), let minute = scanner.number(digits: 2),
            scanner.take(":"), let second = scanner.number(digits: 2), scanner.atEnd,
            (1...12).contains(month), (1...DateArgument.daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 61
        else { return nil }
        return utcDate(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }
}

/// A UTC calendar date as an instant, without time zone lookups.
func utcDate(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) -> Date {
    // Days from 1970-01-01 by the civil-from-days inverse (Howard Hinnant's algorithm).
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    let days = era * 146_097 + dayOfEra - 719_468
    return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
}
