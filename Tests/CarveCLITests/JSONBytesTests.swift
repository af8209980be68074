import CarveCore
@testable import CarveCLI
import CarveTestSupport
import Foundation
import Testing

/// The byte writer used for long listings must print exactly what `rendered` prints.
@Suite struct JSONBytesTests {
    static let pieces = [
        "", "a", "snapshot", "\"", "\\", "\n", "\t", "\r", "\u{01}", "\u{1f}", "\u{7f}", "é", "日本", "🦀", " ",
        "<FS_TREE>/x", "\u{2028}",
    ]

    func value(_ rng: inout SplitMix, depth: Int) -> JSONValue {
        switch Int.random(in: 0..<(depth > 3 ? 6 : 8), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int(Int64.random(in: .min ... .max, using: &rng))
        case 3: return .uint(UInt64.random(in: 0 ... .max, using: &rng))
        case 4: return .double([0.5, -1e300, .infinity, .nan, 3][Int.random(in: 0..<5, using: &rng)])
        case 5:
            return .string(
                (0..<Int.random(in: 0..<5, using: &rng)).map { _ in Self.pieces.randomElement(using: &rng)! }.joined())
        case 6: return .array((0..<Int.random(in: 0..<4, using: &rng)).map { _ in value(&rng, depth: depth + 1) })
        default:
            return .object(
                (0..<Int.random(in: 0..<4, using: &rng)).map { index in
                    (Self.pieces.randomElement(using: &rng)! + "\(index)", value(&rng, depth: depth + 1))
                })
        }
    }

    @Test func bytesEqualTheRenderedText() {
        var rng = SplitMix(seed: 42)
        for _ in 0..<2_000 {
            let json = value(&rng, depth: 0)
            let level = Int.random(in: 0..<4, using: &rng)
            var bytes: [UInt8] = []
            json.append(to: &bytes, level: level)
            #expect(String(decoding: bytes, as: UTF8.self) == json.rendered(level: level))
        }
    }

    @Test func anObjectLayoutPrintsWhatTheObjectPrints() {
        var rng = SplitMix(seed: 7)
        for _ in 0..<500 {
            let members: [(String, JSONValue)] = (0..<Int.random(in: 0..<6, using: &rng)).map { index in
                (Self.pieces.randomElement(using: &rng)! + "\(index)", value(&rng, depth: 1))
            }
            let level = Int.random(in: 0..<4, using: &rng)
            let layout = JSONObjectLayout(keys: members.map(\.0), level: level)
            var bytes: [UInt8] = []
            for (index, member) in members.enumerated() {
                bytes += layout.prefixes[index]
                member.1.append(to: &bytes, level: level + 1)
            }
            bytes += layout.closing
            #expect(String(decoding: bytes, as: UTF8.self) == JSONValue.object(members).rendered(level: level))
        }
    }

    /// Short pieces are copied by overlapping loads and stores, long ones by memcpy:
    /// every length either side of each bound, at every offset into the buffer.
    @Test func theByteWriterKeepsEveryPieceWhole() {
        let source = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for offset in 0..<9 {
            let writer = ByteWriter(capacity: 1)
            var expected = Array(repeating: UInt8(ascii: "-"), count: offset)
            expected.withUnsafeBytes { writer.append($0) }
            for length in 0...40 {
                source.withUnsafeBytes { writer.append(UnsafeRawBufferPointer(rebasing: $0[..<length])) }
                expected += source[..<length]
                source.withUnsafeBytes { writer.appendWide(UnsafeRawBufferPointer(rebasing: $0[(64 - length)...])) }
                expected += source[(64 - length)...]
            }
            writer.take { #expect(Array($0) == expected, "offset \(offset)") }
        }
    }

    /// Around every power of ten, and random values: as Swift prints them.
    @Test func theByteWriterWritesNumbersAsSwiftPrintsThem() {
        var values: [UInt64] = [0, 1, 9, .max, .max - 1]
        var power: UInt64 = 1
        for _ in 0..<20 {
            values += [power &- 1, power, power &+ 1, power &* 5]
            power &*= 10
        }
        var rng = SplitMix(seed: 7)
        for _ in 0..<2_000 {
            values.append(UInt64.random(in: 0...UInt64.max, using: &rng) >> UInt64.random(in: 0..<64, using: &rng))
        }
        let writer = ByteWriter(capacity: 1)
        for value in values {
            writer.appendDecimal(value)
            #expect(writer.takeText() == String(value))
        }
    }

    @Test func theByteWriterQuotesAsJSONValueDoes() {
        var rng = SplitMix(seed: 99)
        // Every byte class the fast test must tell apart, at every position of a word.
        let edges: [String] = [
            "\u{1f}", " ", "!", "\"", "[", "\\", "]", "~", "\u{7f}", "\u{80}", "é", "€", "\u{0}", "a", "\u{100000}",
        ]
        for length in 0..<72 {
            for _ in 0..<40 {
                let text = (0..<length).map { _ in
                    Int.random(in: 0..<4, using: &rng) == 0 ? edges.randomElement(using: &rng)! : "x"
                }.joined()
                let writer = ByteWriter(capacity: 1)
                writer.appendQuoted(text)
                var expected: [UInt8] = []
                JSONValue.quote(text, into: &expected)
                #expect(writer.takeText() == String(decoding: expected, as: UTF8.self), "\(Array(text.utf8))")
            }
        }
    }

    @Test func theSnapshotWriterPrintsWhatTheColumnsPrint() throws {
        let top = FilesystemMount(mountpoint: "/mnt/top", subvolumePath: "/", subvolumeID: 5)
        let filesystem = Filesystem(
            uuid: "0c1d2e3f-0000-4000-8000-000000000001", devices: ["/dev/loop9"], mounts: [top])
        let created = Date(timeIntervalSince1970: 1_793_534_401.25)
        var snapper = Volume(
            id: 300, parentID: 256, path: "@/.snapshots/7/snapshot", mountedPath: "/mnt/top/@/.snapshots/7/snapshot",
            uuid: "a1", parentUUID: "b2", receivedUUID: "c3", generation: 42, created: created,
            metadata: ManagerMetadata(
                manager: .snapper, config: "root", number: 7, type: "pre",
                description: "before \"upgrade\"\n\tnow", important: true),
            sourceID: 256, sourcePath: "@", exclusive: 4096, referenced: 1 << 40, mountpoints: ["/a", "/b c"])
        snapper.hasNestedSubvolumes = true
        let timeshift = Volume(
            id: 301, path: "timeshift-btrfs/snapshots/2026-11-01_12-00-01/@", uuid: "d4", created: created,
            readOnly: false,
            metadata: ManagerMetadata(manager: .timeshift, name: "2026-11-01_12-00-01", tags: ["O", "D"]))
        let plain = Volume(
            id: 302, path: "data", uuid: "e5", created: Date(timeIntervalSince1970: -86_400), isSnapshot: false)
        let negative = Volume(
            id: 303, path: "odd", uuid: "f6", created: created, metadata: ManagerMetadata(manager: .snapper, number: -3)
        )
        let listing = VolumeListing(
            filesystem: filesystem, subvolumes: [snapper, timeshift, plain, negative], sizes: .quota)
        for zone in [TimeZone(identifier: "UTC")!, TimeZone(identifier: "America/St_Johns")!] {
            for row in SnapshotRow.rows(at: Array(listing.subvolumes.indices), of: listing, timeZone: zone) {
                // Every column, and any other choice (--output, --explain's columns).
                for columns in [
                    SnapshotColumns.all, Array(SnapshotColumns.all.reversed().dropLast(3)), SnapshotColumns.explained,
                ] {
                    let out = ByteWriter()
                    SnapshotJSONWriter(columns: columns, level: 2, into: out).append(row)
                    #expect(out.takeText() == SnapshotColumns.snapshotJSON(row, columns: columns).rendered(level: 2))
                }
            }
        }
    }
}
