/// One line of /proc/self/mountinfo, with its octal escapes decoded.
public struct MountEntry: Sendable, Hashable, Codable {
    public var mountID: Int
    public var parentID: Int
    public var number: DeviceNumber
    /// The path inside the filesystem that is mounted here: "/" or, for btrfs
    /// `-o subvol=@home`, "/@home".
    public var root: String
    public var mountpoint: String
    /// Per-mount options, e.g. ["rw", "relatime"].
    public var options: [String]
    public var fsType: String
    /// The mount source, e.g. "/dev/loop3p2".
    public var source: String
    /// Per-superblock options, e.g. ["rw", "subvolid=256", "subvol=/@home"].
    public var superOptions: [String]

    public init(
        mountID: Int, parentID: Int, number: DeviceNumber, root: String, mountpoint: String,
        options: [String], fsType: String, source: String, superOptions: [String]
    ) {
        self.mountID = mountID; self.parentID = parentID; self.number = number; self.root = root
        self.mountpoint = mountpoint; self.options = options; self.fsType = fsType; self.source = source
        self.superOptions = superOptions
    }

    /// The value of a per-superblock option such as `subvolid`, or nil.
    /// Compared byte by byte, with no "name=" made: a deletion run asks each btrfs mount's
    /// `subvolid` again before every snapshot.
    public func superOption(_ name: String) -> String? {
        let length = name.utf8.count
        for option in superOptions where option.utf8.count > length {
            let bytes = option.utf8
            guard bytes.starts(with: name.utf8),
                bytes[bytes.index(bytes.startIndex, offsetBy: length)] == UInt8(ascii: "=")
            else { continue }
            return String(decoding: bytes.dropFirst(length + 1), as: UTF8.self)
        }
        return nil
    }

    public var isReadOnly: Bool { options.contains("ro") }
}

/// Parses /proc/self/mountinfo (proc(5)): ten or more space-separated fields,
/// optional fields closed by a lone "-", and `\NNN` octal escapes for space, tab,
/// newline and backslash in paths.
public enum MountInfo {
    public static func parse(_ text: String) throws(ParseError) -> [MountEntry] {
        // Split on the UTF-8 bytes, not on characters: every separator is ASCII, and
        // walking a table of a hundred mounts character by character cost more than
        // the rest of `carve devices`.
        let bytes = Array(text.utf8)
        var entries: [MountEntry] = []
        for (index, line) in split(bytes[...], on: UInt8(ascii: "\n"), omittingEmpty: true).enumerated() {
            entries.append(try parseLine(line, number: index + 1))
        }
        return entries
    }

    static func parseLine(_ line: ArraySlice<UInt8>, number: Int) throws(ParseError) -> MountEntry {
        let fields = split(line, on: UInt8(ascii: " "), omittingEmpty: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        func fail(_ reason: String) -> ParseError {
            ParseError(line: number, of: "/proc/self/mountinfo", reason: reason)
        }
        guard fields.count >= 10, let separator = fields[6...].firstIndex(of: "-"), fields.count >= separator + 4
        else { throw fail("expected at least ten fields with a '-' separator") }
        guard let mountID = Int(fields[0]), let parentID = Int(fields[1]) else { throw fail("bad mount id") }
        let numbers = fields[2].split(separator: ":")
        guard numbers.count == 2, let major = UInt32(numbers[0]), let minor = UInt32(numbers[1])
        else { throw fail("bad major:minor '\(fields[2])'") }
        func list(_ field: String) -> [String] {
            split(Array(field.utf8)[...], on: UInt8(ascii: ","), omittingEmpty: true).map {
                String(decoding: $0, as: UTF8.self)
            }
        }
        return MountEntry(
            mountID: mountID, parentID: parentID, number: DeviceNumber(major: major, minor: minor),
            root: unescape(fields[3]), mountpoint: unescape(fields[4]), options: list(fields[5]),
            fsType: unescape(fields[separator + 1]), source: unescape(fields[separator + 2]),
            superOptions: list(fields[separator + 3]).map(unescape)
        )
    }

    /// The device numbers (third field) of every well-formed line: which filesystems a
    /// mount namespace shows, read from a process's mountinfo without parsing the rest.
    public static func deviceNumbers(in bytes: [UInt8]) -> Set<DeviceNumber> {
        var numbers = Set<DeviceNumber>()
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 3)
            guard fields.count > 3 else { continue }
            let parts = fields[2].split(separator: UInt8(ascii: ":"))
            guard parts.count == 2, let major = UInt32(String(decoding: parts[0], as: UTF8.self)),
                let minor = UInt32(String(decoding: parts[1], as: UTF8.self))
            else { continue }
            numbers.insert(DeviceNumber(major: major, minor: minor))
        }
        return numbers
    }

    /// The pieces of `bytes` between `separator` bytes (empty pieces too, unless `omittingEmpty`).
    /// Cut at an ASCII byte, each piece of valid UTF-8 is valid UTF-8.
    private static func split(
        _ bytes: ArraySlice<UInt8>, on separator: UInt8, omittingEmpty: Bool
    ) -> [ArraySlice<UInt8>] {
        var pieces: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        for index in bytes.indices where bytes[index] == separator {
            if !omittingEmpty || index > start { pieces.append(bytes[start..<index]) }
            start = index + 1
        }
        if !omittingEmpty || start < bytes.endIndex { pieces.append(bytes[start...]) }
        return pieces
    }

    /// Decodes `\NNN` octal escapes. The decoded bytes may not be UTF-8; such bytes
    /// are carried (`ByteText`), so every mountpoint comes back exactly.
    public static func unescape(_ field: String) -> String {
        guard field.utf8.contains(UInt8(ascii: "\\")) else { return field }
        var bytes: [UInt8] = []
        let source = ByteText.bytes(of: field)
        var index = 0
        while index < source.count {
            if source[index] == UInt8(ascii: "\\"), index + 3 < source.count {
                let digits = source[(index + 1)...(index + 3)]
                if digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "7") }) {
                    let value = digits.reduce(0) { $0 * 8 + Int($1 - UInt8(ascii: "0")) }
                    if value <= 255 {
                        bytes.append(UInt8(value))
                        index += 4
                        continue
                    }
                }
            }
            bytes.append(source[index])
            index += 1
        }
        return ByteText.decode(bytes)
    }
}

/// The mount table of this machine, behind a protocol so tests can describe mounts.
public protocol MountTable: Sendable {
    func mounts() throws -> [MountEntry]
    /// The table and a number that stays the same exactly as long as the table does, so
    /// what is worked out from a table can be kept until it changes; nil when the table
    /// keeps no such number (then it is worked out again each time).
    func versionedMounts() throws -> (entries: [MountEntry], version: Int?)
}

extension MountTable {
    public func versionedMounts() throws -> (entries: [MountEntry], version: Int?) { (try mounts(), nil) }
}
