import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// The exact sizes cache on a synthetic filesystem: a source subvolume (256) whose files
/// are rewritten between read-only snapshots. Sizes from the cache plus the trees read
/// again must equal a full scan's, and every damaged file must be refused.
@Suite struct ExactSizesCacheTests {
    /// A filesystem model: each subvolume's references, read-only or not, with generations.
    struct Model {
        var trees: [UInt64: [ExtentKey]] = [:]
        var volumes: [UInt64: Volume] = [:]
        var next: UInt64 = 0x10_0000
        var random = SplitMix(seed: 24)

        mutating func extent() -> ExtentKey {
            defer { next += 0x4000 }
            return ExtentKey(diskBytenr: next, diskBytes: UInt64.random(in: 1...4, using: &random) * 4096)
        }

        init(files: Int) {
            trees[256] = (0..<files).map { _ in extent() }
            volumes[256] = Volume(
                id: 256, path: "home", uuid: "u256", generation: 10, created: .init(), readOnly: false)
            trees[5] = [extent()]
        }

        mutating func churn(_ count: Int) {
            for _ in 0..<count { trees[256]![Int.random(in: 0..<trees[256]!.count, using: &random)] = extent() }
            volumes[256]!.generation += 1
        }

        mutating func snapshot(_ id: UInt64) {
            trees[id] = trees[256]
            volumes[id] = Volume(id: id, path: "s\(id)", uuid: "u\(id)", generation: 100 + id, created: .init())
        }

        var subvolumes: [Volume] { volumes.values.sorted { $0.id < $1.id } }
        var ids: [UInt64] { trees.keys.sorted() }

        /// What a scan of every tree gives.
        func fullScan() -> ExactSizes {
            var map = ExtentMap(subvolumes: ids)
            var treeBytes: [UInt64: UInt64] = [:]
            for id in ids {
                map.addReferences(subvolume: id, trees[id]!)
                if id % 3 == 0 { map.addInline(subvolume: id, bytes: id) }
                treeBytes[id] = 16384 * (id % 7 + 1)
            }
            return ExactSizes(map: map, scan: .init(), nodeSize: 16384, treeBytes: treeBytes)
        }

        /// What a scan that takes the cache's trees and reads the rest gives.
        func scan(with cache: ExactSizesCache) -> (ExactSizes, read: [UInt64]) {
            let reused = cache.reusable(for: subvolumes)
            var cache = cache
            var exact = cache.seed(subvolumes: ids, reused: reused)
            var read: [UInt64] = []
            for id in ids where reused[id] == nil {
                read.append(id)
                exact.map.addReferences(subvolume: id, trees[id]!)
                if id % 3 == 0 { exact.map.addInline(subvolume: id, bytes: id) }
                exact.treeBytes[id] = 16384 * (id % 7 + 1)
            }
            return (exact, read)
        }
    }

    func series() -> Model {
        var model = Model(files: 2000)
        for id: UInt64 in 300..<320 {
            model.churn(20)
            model.snapshot(id)
        }
        return model
    }

    func cache(of model: Model) -> ExactSizesCache {
        ExactSizesCache(
            filesystem: "0f1e2d3c-0000-4000-8000-000000000001", keeping: model.subvolumes, of: model.fullScan())
    }

    @Test func aCachedSeriesGivesTheSizesOfAFullScan() throws {
        var model = series()
        var written = cache(of: model)
        written.directoryHints = [
            "u256": [
                .init(id: 300, leafBytesPerSizeByte: 1.75, entryLeafBytes: 9000),
                .init(id: 4100, leafBytesPerSizeByte: 0.5, entryLeafBytes: 4096),
            ]
        ]
        let stored = try ExactSizesCache(decoding: written.encoded())
        #expect(stored == written)
        // A run later: the source changed, one snapshot was deleted, one made, one made
        // writable and written to.
        model.churn(20)
        model.trees[305] = nil; model.volumes[305] = nil
        model.snapshot(330)
        model.trees[310]!.append(model.extent()); model.volumes[310]!.generation += 1
        let (exact, read) = model.scan(with: stored)
        #expect(read == [5, 256, 310, 330])
        let full = model.fullScan()
        #expect(exact.map == full.map)
        #expect(exact.map.exclusiveBytes() == full.map.exclusiveBytes())
        #expect(exact.map.referencedBytes() == full.map.referencedBytes())
        #expect(exact.treeBytes == full.treeBytes)
        #expect(exact.map.inlineBytes == full.map.inlineBytes)
        #expect(exact.scan.cachedSubvolumes == 18)
    }

    @Test func theFileWrittenStraightFromTheMapIsTheCachesEncoding() throws {
        var model = series()
        model.volumes[303]!.readOnly = false
        model.churn(20)
        let hints: [SubvolumeUUID: [ExactSizesCache.DirectoryHint]] = [
            "u256": [.init(id: 300, leafBytesPerSizeByte: 1.75, entryLeafBytes: 9000)]
        ]
        var written = cache(of: model)
        written.directoryHints = hints
        let direct = ExactSizesCache.encoded(
            filesystem: written.filesystem, keeping: model.subvolumes, of: model.fullScan(), directoryHints: hints)
        #expect(direct == written.encoded())
        #expect(try ExactSizesCache(decoding: direct) == written)
    }

    /// The writer puts extents into chunks of 64 KiB and appends a chunk when the next
    /// run might not fit: thirty extents of 3,500 runs each (every other one of 7,000
    /// trees, 7 KB each) follow one another, so chunks end inside some of them.
    @Test func anExtentOfMoreRunsThanAChunkHoldsIsWrittenWhole() throws {
        let ids = (0..<UInt64(7000)).map { 300 + $0 }
        let volumes = ids.map {
            Volume(id: $0, path: "s\($0)", uuid: "u\($0)", generation: 100 + $0, created: .init())
        }
        var map = ExtentMap(subvolumes: ids)
        func extent(_ index: UInt64) -> ExtentKey { ExtentKey(diskBytenr: 0x10_0000 * (index + 1), diskBytes: 4096) }
        for (position, id) in ids.enumerated() {
            var keys = (0..<UInt64(40)).map { extent($0 * 1000 + UInt64(position) % 7) }
            if position % 2 == 0 { keys += (0..<UInt64(30)).map { extent(500_000 + $0) } }
            map.addReferences(subvolume: id, keys)
        }
        let exact = ExactSizes(
            map: map, scan: .init(), nodeSize: 16384,
            treeBytes: Dictionary(uniqueKeysWithValues: ids.map { ($0, 16384) }))
        let cache = ExactSizesCache(filesystem: "f", keeping: volumes, of: exact)
        let decoded = try ExactSizesCache(decoding: cache.encoded())
        #expect(decoded == cache)
        #expect(decoded.extentCount == 310)
        #expect(cache.encoded().count > 3 * 65_536, "the extents span chunks")
    }

    @Test func writableSubvolumesAreNeverCached() {
        var model = series()
        model.volumes[303]!.readOnly = false
        let kept = cache(of: model).trees.map(\.id)
        #expect(!kept.contains(256) && !kept.contains(303) && !kept.contains(5))
        #expect(kept.count == 19)
        // A writable snapshot whose generation still matches is read again too.
        let stored = cache(of: series())
        #expect(stored.reusable(for: model.subvolumes)[303] == nil)
    }

    @Test func aSeriesCostsAboutItsDistinctExtents() {
        let model = series()
        let bytes = cache(of: model).encoded()
        let extents = cache(of: model).extentCount
        // 20 snapshots of 2000 files: 2,380 distinct extents, each a few bytes.
        #expect(bytes.count < extents * 12 + 2048, "\(bytes.count) bytes for \(extents) extents")
    }

    @Test func everyDamagedFileIsRefused() throws {
        let bytes = cache(of: series()).encoded()
        #expect(throws: ExactSizesCacheDamage.truncated) { try ExactSizesCache(decoding: []) }
        #expect(throws: ExactSizesCacheDamage.truncated) { try ExactSizesCache(decoding: Array(bytes.dropLast(1))) }
        #expect(throws: ExactSizesCacheDamage.truncated) { try ExactSizesCache(decoding: Array(bytes.prefix(20))) }
        var other = bytes
        other[8] = 9
        #expect(throws: ExactSizesCacheDamage.otherVersion(9)) { try ExactSizesCache(decoding: other) }
        var text = bytes
        text[0] = UInt8(ascii: "{")
        #expect(throws: ExactSizesCacheDamage.notACacheFile) { try ExactSizesCache(decoding: text) }
        // Any one flipped byte of the payload, or bit of the checksum.
        var random = SplitMix(seed: 7)
        for _ in 0..<300 {
            var flipped = bytes
            let at = Int.random(in: 24..<bytes.count, using: &random)
            flipped[at] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
            #expect(throws: ExactSizesCacheDamage.self) { try ExactSizesCache(decoding: flipped) }
        }
    }

    /// A file whose checksum matches but whose content contradicts itself (written by
    /// hand, or by a bug) is refused, never trusted: no index beyond the trees.
    @Test func aConsistentlyChecksummedButMalformedPayloadIsRefused() {
        func file(_ payload: [UInt8]) -> [UInt8] {
            var header = Array("carve-xc".utf8)
            for value in [UInt64(ExactSizesCache.version), UInt64(payload.count), ExactSizesCache.checksum(payload)] {
                header += (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
            }
            return header + payload
        }
        // "a", node size 1, one tree (id 1, "u", gen 1, no inline, 0, read-only), one extent
        // run 0...5, (valid:) its run 0...0 and no directory hints.
        let treeOutOfRange: [UInt8] = [1, 97, 1, 1, 1, 1, 117, 1, 0, 0, 0, 1, 1, 1, 1, 0, 5]
        #expect(throws: ExactSizesCacheDamage.malformed("a tree index out of range")) {
            try ExactSizesCache(decoding: file(treeOutOfRange))
        }
        let valid: [UInt8] = [1, 97, 1, 1, 1, 1, 117, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0]
        #expect(throws: Never.self) { try ExactSizesCache(decoding: file(valid)) }
        #expect(throws: ExactSizesCacheDamage.malformed("bytes after the last directory hint")) {
            try ExactSizesCache(decoding: file(valid + [0]))
        }
        #expect(throws: ExactSizesCacheDamage.truncated) {
            try ExactSizesCache(decoding: file(Array(valid.dropLast())))
        }
        // Two read-only trees (id, "u", gen 1, no inline, 0), no extents, no hints: the same
        // id twice, then two ids the wrong way round.
        let twoTrees: ([UInt8], [UInt8]) -> [UInt8] = {
            [1, 97, 1, 2] + $0 + [1, 117, 1, 0, 0, 0] + $1 + [1, 117, 1, 0, 0, 0, 0, 0]
        }
        #expect(throws: Never.self) { try ExactSizesCache(decoding: file(twoTrees([1], [2]))) }
        for ids in [([1], [1]), ([2], [1])] as [([UInt8], [UInt8])] {
            #expect(throws: ExactSizesCacheDamage.malformed("trees out of order")) {
                try ExactSizesCache(decoding: file(twoTrees(ids.0, ids.1)))
            }
        }
        let hugeCount: [UInt8] = [1, 97, 1, 0xFF, 0xFF, 0xFF, 0x7F]
        #expect(throws: ExactSizesCacheDamage.malformed("a count larger than the file")) {
            try ExactSizesCache(decoding: file(hugeCount))
        }
        // The exact-cache fuzz target's first find: a filesystem name whose length is the
        // whole payload (36), its own byte included, ran one byte past the end.
        let nameOverTheEnd = Array("$48a5b1$48a5b133-7615-4e6f-bbf4-803f".utf8)
        #expect(throws: ExactSizesCacheDamage.truncated) { try ExactSizesCache(decoding: file(nameOverTheEnd)) }
        // The same for a writable tree's records: their byte count one past what is left.
        let state: [UInt8] = [1, 97, 1, 1, 5, 1, 117, 1, 0, 0, 1, 0, 1, 2, 0, 0, 0, 0, 0, 1, 3, 0xAA, 0xBB]
        #expect(throws: ExactSizesCacheDamage.truncated) { try ExactSizesCache(decoding: file(state)) }
    }

    /// Room made ahead (a seeded map) changes nothing of what the map holds.
    @Test func aMapWithRoomMadeAheadIsTheSameMap() {
        let model = series()
        var reserved = ExtentMap(subvolumes: model.ids)
        reserved.addReferences(subvolume: 300, model.trees[300]!)
        reserved.reserveExtents(5000)
        var grown = ExtentMap(subvolumes: model.ids)
        grown.addReferences(subvolume: 300, model.trees[300]!)
        for id in model.ids where id != 300 {
            reserved.addReferences(subvolume: id, model.trees[id]!)
            grown.addReferences(subvolume: id, model.trees[id]!)
        }
        #expect(reserved == grown)
        #expect(reserved.exclusiveBytes() == grown.exclusiveBytes())
    }

}
