import CarveCore

/// Where a column writes its JSON value: straight into the bytes of a long listing,
/// or, captured, into a `JSONValue` for the general writer. A column that writes its
/// value once serves both writers. One final class, not a protocol: ten thousand
/// snapshots of thirty columns each are a third of a million values, and a direct
/// call per value kept the byte writer as fast as the hand-written one it replaced.
final class JSONCells {
    /// Where the bytes go; a captured value is kept in `captured` instead.
    let bytes: ByteWriter
    private let capturing: Bool
    private(set) var captured: JSONValue = .null
    private let level: Int

    /// Writes into `bytes` as `JSONValue.append(to:level:)` prints a member of an
    /// object at `level`. A string that holds bytes that are not UTF-8 sets
    /// `bytes.replacedCarriedBytes`.
    init(writingInto bytes: ByteWriter, level: Int) {
        self.bytes = bytes; capturing = false; self.level = level
    }

    private init(capturing: Bool) { bytes = ByteWriter(capacity: 0); self.capturing = capturing; level = 0 }

    /// The JSON value that `cells` writes for a row.
    static func value<Row>(of cells: @escaping @Sendable (Row, JSONCells) -> Void) -> @Sendable (Row) -> JSONValue {
        { row in
            let cell = JSONCells(capturing: true)
            cells(row, cell)
            return cell.captured
        }
    }

    func null() {
        if capturing { captured = .null } else { bytes.append("null") }
    }

    func bool(_ value: Bool) {
        if capturing { captured = .bool(value) } else { bytes.append(value ? "true" : "false") }
    }

    /// A count or id; null when nil (unknown).
    func uint(_ value: UInt64?) {
        if capturing { return captured = .uint(value) }
        if let value { bytes.appendDecimal(value) } else { bytes.append("null") }
    }

    func int(_ value: Int?) {
        if capturing { return captured = .int(value) }
        guard let value else { return bytes.append("null") }
        if value < 0 { bytes.append(byte: UInt8(ascii: "-")) }
        bytes.appendDecimal(UInt64(value.magnitude))
    }

    func string(_ value: String?) {
        if capturing { return captured = .string(value) }
        if let value { bytes.appendQuoted(value) } else { bytes.append("null") }
    }

    /// A UUID: its words written as text in place, with no string made for it.
    func uuid(_ value: SubvolumeUUID?) {
        guard !capturing, let words = value?.words else { return string(value?.text) }
        bytes.appendInPlace(maximum: 38) { out in
            out[0] = UInt8(ascii: "\""); out[37] = UInt8(ascii: "\"")
            SubvolumeUUID.format(words.0, words.1, into: UnsafeMutableRawPointer(out.baseAddress! + 1))
            return 38
        }
    }

    /// A list of strings: `[]` for the empty list most rows have, with no value built.
    func strings(_ values: [String]) {
        if values.isEmpty && !capturing { return bytes.append("[]") }
        value(.array(values.map(JSONValue.string)))
    }

    /// A date as ISO 8601 in `timeZone` (`DateText.iso8601`), its digits written in
    /// place. The zone's offset and the text are made once per second of time: the
    /// text holds whole seconds, a snapshot's CREATED and OTIME are most often one
    /// date, and a batch of snapshots one second (the C library's answer for the
    /// offset costs more than the rest of the date).
    func date(_ date: Date, timeZone: TimeZone) {
        let second = date.wholeSeconds
        if second != offsetSecond || timeZone != offsetZone {
            offset = timeZone.secondsFromGMT(for: date)
            offsetSecond = second; offsetZone = timeZone
            textIsCurrent = false
        }
        if capturing { return captured = .string(DateText.iso8601(date, timeZone: timeZone)) }
        if textIsCurrent { return bytes.append(lastText) }
        var written = false
        bytes.appendInPlace(maximum: 27) { text in
            text[0] = UInt8(ascii: "\"")
            guard
                let length = DateText.iso8601(
                    date, offset: offset, into: UnsafeMutableBufferPointer(rebasing: text[1...]))
            else { return 0 }
            text[length + 1] = UInt8(ascii: "\"")
            written = true
            lastText.removeAll(keepingCapacity: true)
            lastText.append(contentsOf: text[..<(length + 2)])
            return length + 2
        }
        textIsCurrent = written
        if !written { bytes.appendQuoted(DateText.iso8601(date, timeZone: timeZone)) }
    }

    /// Whether `lastText` (quoted) is the text of the current second and zone.
    private var textIsCurrent = false
    private var lastText: [UInt8] = []

    private var offsetSecond: Int64 = .min
    private var offsetZone: TimeZone?
    private var offset = 0

    /// Anything else (a list): laid out as the general writer lays it out.
    func value(_ value: JSONValue) {
        if capturing { return captured = value }
        if case .array(let items) = value, items.isEmpty { return bytes.append("[]") }
        if value.carriesBytes { bytes.replacedCarriedBytes = true }
        var laidOut: [UInt8] = []
        value.append(to: &laidOut, level: level + 1)
        bytes.append(laidOut)
    }
}
