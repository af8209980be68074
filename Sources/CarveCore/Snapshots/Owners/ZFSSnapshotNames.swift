/// What the ZFS snapshot tools' owners share: a ZFS snapshot's place split at its `@`,
/// and the dates their names carry, read by a pattern.
enum ZFSSnapshotNames {
    /// The dataset and the snapshot name of a ZFS snapshot's place; nil for anything else
    /// (a dataset, a btrfs path).
    static func split(_ place: OwnerPlace) -> (dataset: Substring, name: Substring)? {
        let path = place.path
        guard let at = path.firstIndex(of: "@"), at != path.startIndex else { return nil }
        return (path[..<at], path[path.index(after: at)...])
    }

    /// The date `text` holds in the shape of `pattern`: `YYYY` the year, `MM` the month,
    /// `DD` the day, `hh`, `mm` and `ss` the time (the count of letters is the count of
    /// digits), any other character itself; in `zone`. nil when the text has another shape
    /// or an impossible date.
    static func date(_ text: some StringProtocol, pattern: String, zone: TimeZone) -> Date? {
        var fields: [Character: Int] = [:]
        var index = text.utf8.startIndex
        let bytes = text.utf8
        var pending = pattern.utf8[...]
        while let letter = pending.first {
            let run = pending.prefix { $0 == letter }
            pending = pending.dropFirst(run.count)
            let character = Character(Unicode.Scalar(letter))
            guard "YMDhms".contains(character) else {
                for byte in run {
                    guard index < bytes.endIndex, bytes[index] == byte else { return nil }
                    index = bytes.index(after: index)
                }
                continue
            }
            var value = 0
            for _ in run {
                guard index < bytes.endIndex, (0x30...0x39).contains(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - 0x30)
                index = bytes.index(after: index)
            }
            fields[character] = value
        }
        guard index == bytes.endIndex, let year = fields["Y"], let month = fields["M"], let day = fields["D"] else {
            return nil
        }
        return localDate(
            year: year, month: month, day: day, hour: fields["h"] ?? 0, minute: fields["m"] ?? 0,
            second: fields["s"] ?? 0, in: zone)
    }

    /// Where the last `needle` starts in `text` (the standard library's own search would
    /// link its regex engine: see `containsText`).
    static func lastIndex(of needle: String, in text: Substring) -> Substring.Index? {
        var index = text.endIndex
        while index > text.startIndex {
            index = text.index(before: index)
            if text[index...].hasPrefix(needle) { return index }
        }
        return nil
    }
}
