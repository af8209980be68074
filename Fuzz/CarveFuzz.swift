import Foundation

// libFuzzer entry points for every CarveCore parser that reads outside input.
// Built by Scripts/fuzz together with the CarveCore sources into one binary
// (never part of the shipped product); CARVE_FUZZ_TARGET picks the parser.
// Besides "does not crash, hang or leak", each target checks a cheap invariant.

enum FuzzTarget: String, CaseIterable {
    case size, duration, date, snapshotName = "snapshot-name", snapperInfo = "snapper-info"
    case snapperConfig = "snapper-config", timeshiftInfo = "timeshift-info", btrbkName = "btrbk-name"
    case mountinfo, udev, label, udevFile = "udev-file"
    case zfsOutput = "zfs-output", zfsName = "zfs-name", exactCache = "exact-cache"
    case cacheExtents = "cache-extents"

    static let selected: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["CARVE_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            let known = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("CARVE_FUZZ_TARGET must be one of: \(known)\n".utf8))
            exit(64)
        }
        return target
    }()

    func run(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        let utc = TimeZone.utc
        switch self {
        case .size:
            if let bytes = try? ByteSize.parse(text), text.allSatisfy(\.isASCIIDigit) {
                precondition(UInt64(text) == bytes, "plain digits parse to themselves")
            }
        case .duration: _ = try? TimeSpan.parse(text)
        case .date: _ = try? DateArgument.parse(text, timeZone: utc)
        case .snapshotName: _ = try? SnapshotName.parse(text)
        case .snapperInfo: _ = try? SnapperInfo.parse(Array(data), config: "root")
        case .snapperConfig:
            _ = try? SnapperConfig.parse(name: "root", text: text)
            _ = try? SnapperConfig.configNames(fromSysconfig: text)
        case .timeshiftInfo:
            _ = try? TimeshiftInfo.parse(Array(data), name: "2026-11-02_12-00-01")
            _ = TimeshiftInfo.date(fromName: text, timeZone: utc)
        case .btrbkName: _ = BtrbkName.parse(text, timeZone: utc)
        case .mountinfo:
            if let entries = try? MountInfo.parse(text) {
                precondition(entries.count <= text.split(separator: "\n").count, "at most one entry a line")
            }
        case .udevFile:
            // A dump's DIR/dev/NAME, any bytes: every value read as written is one line of
            // the file. A `_ENC` value may decode to several (`\x0a`, a label with a newline).
            let found = UdevPropertyFile.parse(Array(data))
            precondition(found.values.count <= UdevPropertyFile.fields.count, "one value a field")
            let decoded = Set(UdevPropertyFile.keys.filter(\.decoded).map(\.field))
            for (field, value) in found.values where !decoded.contains(field) {
                precondition(!value.contains("\n"), "a value read as written is one line")
            }
        case .zfsOutput:
            // Whatever zfs or zpool printed, read by each of carve's readers of it: at most
            // one dataset or hold a line, never a crash.
            let lines = text.split(separator: "\n").count
            if let datasets = try? ZFSListOutput.parseList(text, columns: ZFSListOutput.properties) {
                precondition(datasets.count <= lines, "at most one dataset a line")
            }
            if let datasets = try? ZFSListOutput.parseGet(text) {
                precondition(datasets.count <= lines, "at most one dataset a line")
                precondition(Set(datasets.map(\.name)).count == datasets.count, "each dataset once")
            }
            _ = try? ZFSCommandOutput.holds(text)
            _ = try? ZFSCommandOutput.destroyDryRun(text)
            _ = try? ZFSCommandOutput.pools(text)
            _ = try? ZFSCommandOutput.freeing(text)
            if let layout = try? ZFSPoolLayout.parse(status: text) { _ = layout.summary }
            _ = ZFSDialect.detect(zfsUsage: text, getUsage: text, zpoolUsage: text)
            _ = ZFSSendCommand.snapshots(text.split(separator: "\0", omittingEmptySubsequences: false).map(String.init))
        case .exactCache:
            // Any payload behind a valid header (a checksum would stop nearly every input at
            // the door): read, every writable tree's records checked and walked, and what
            // reads back writes the same bytes again.
            var header = ExactSizesCache.magic
            for word in [UInt64(ExactSizesCache.version), UInt64(data.count), ExactSizesCache.checksum([UInt8](data))] {
                header += (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
            }
            guard let cache = try? ExactSizesCache(decoding: header + [UInt8](data)) else { break }
            for tree in cache.trees {
                guard let records = tree.state?.records.checked() else { continue }
                precondition(records.all.count == records.count, "as many records as counted")
            }
            let again = cache.encoded()
            precondition((try? ExactSizesCache(decoding: again))?.encoded() == again, "what reads back writes back")
        case .cacheExtents:
            // The cache's extents read the quick way as the careful way reads them alone: the
            // first byte the trees' count (255: 2^32, the most the quick way takes), the second
            // how many extents, the rest their bytes.
            guard data.count >= 2 else { break }
            let bytes = [UInt8](data)
            let trees = bytes[0] == 255 ? 1 << 32 : Int(bytes[0]), count = Int(bytes[1])
            let quick = ExtentsRead.of(bytes, count: count, trees: trees, quick: true)
            precondition(quick == ExtentsRead.of(bytes, count: count, trees: trees, quick: false), "read alike")
        case .zfsName:
            // A snapshot's name as each ZFS tool's owner reads it: a date when it recognises one.
            let place = OwnerPlace(path: "tank/home@" + text, mountedPath: nil, readOnly: true)
            var settings = OwnerSettings()
            settings[ZnapzendFormats.self] = ZnapzendFormats(["tank/home": "%Y-%m-%d-%H%M%S"])
            let context = OwnerContext(timeZone: utc, readFile: { _, _ in nil }, settings: settings)
            for owner in SnapshotOwners.all(for: .zfs) {
                if let found = owner.recognise(place, context: context)?.metadata {
                    precondition(found.manager == owner.manager, "an owner names itself")
                }
            }
            _ = ZnapzendOwner.pattern(text)
        case .udev:
            let decoded = UdevEncoding.decode(text)
            precondition(decoded.utf8.count <= text.utf8.count * 3, "decoding never grows a value much")
        case .label:
            // A label or file name as libblkid or the kernel hands it over (a C string, any
            // bytes), on its way to a table cell and JSON: carried exactly, one line in a
            // table, reversible, and valid JSON whose base64 member holds the exact bytes.
            let raw = [UInt8](data.prefix { $0 != 0 })
            let label = ByteText.decode(raw)
            precondition(ByteText.bytes(of: label) == raw, "every byte is carried")
            let cell = escapedForTable(label)
            precondition(!cell.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f }, "a cell is one line")
            precondition(!cell.unicodeScalars.contains { ByteText.carriedByte($0) != nil }, "a cell is UTF-8")
            precondition(unescapedCell(cell) == raw, "the escaping can be undone")
            var quoted: [UInt8] = []
            JSONValue.quote(label, into: &quoted)
            let writer = ByteWriter(capacity: 1)
            writer.appendQuoted(label)
            precondition(writer.takeText() == String(decoding: quoted, as: UTF8.self), "both JSON writers agree")
            let parsed = try? JSONSerialization.jsonObject(with: Data(quoted), options: .fragmentsAllowed) as? String
            precondition(parsed == ByteText.replacingCarriedBytes(label), "JSON holds the text, U+FFFD for other bytes")
            let object = JSONValue.object([("label", .string(label))]).rendered()
            let members = try? JSONSerialization.jsonObject(with: Data(object.utf8)) as? [String: String]
            let exact =
                members?["label_base64"].flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) } ?? Array(label.utf8)
            precondition(exact == raw, "JSON carries the exact bytes")
        }
    }
}

/// What `RawCacheReader` makes of the extents from the third byte on: the extents and
/// where they end, or the damage.
struct ExtentsRead: Equatable {
    var keys: [ExtentKey] = [], sets: [SubvolumeSet] = [], end = 0
    var damage: ExactSizesCacheDamage?

    static func of(_ bytes: [UInt8], count: Int, trees: Int, quick: Bool) -> ExtentsRead {
        bytes.withUnsafeBytes { raw in
            var reader = RawCacheReader(base: raw, offset: 2), read = ExtentsRead()
            do throws(ExactSizesCacheDamage) {
                (read.keys, read.sets) = try reader.extents(count: count, treeCount: trees, quick: quick)
                read.end = reader.offset
            } catch {
                read.damage = error
            }
            return read
        }
    }
}

/// `\xHH` back to the byte, as a reader of the table would.
func unescapedCell(_ cell: String) -> [UInt8] {
    var scalars = Array(cell.unicodeScalars)[...]
    var out: [UInt8] = []
    while let scalar = scalars.popFirst() {
        guard scalar == "\\", scalars.first == "x",
            let value = UInt8(String(String.UnicodeScalarView(scalars.dropFirst().prefix(2))), radix: 16)
        else { out.append(contentsOf: UTF8.encode(scalar)!); continue }
        scalars = scalars.dropFirst(3)
        out.append(value)
    }
    return out
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    FuzzTarget.selected.run(data)
    return 0
}
