import CarveCore
@testable import CarveCLI
import CarveTestSupport
import Testing

/// Each row's source is the mounted path of the subvolume its source id names, however
/// the listing is ordered: by id (searched by halves), shuffled (a table), runs of one
/// source and sources that are not listed or not mounted.
@Suite struct SnapshotRowSourceTests {
    @Test func theSourceIsTheMountedPathOfTheSubvolumeTheIdNames() {
        var random = SplitMix(seed: 19)
        for round in 0..<60 {
            let sources = (0..<Int.random(in: 1...6, using: &random)).map { index in
                SnapshotFixtures.subvolume(
                    UInt64(256 + index * 7), path: "src\(index)", mountedAt: Bool.random(using: &random) ? "/m" : nil)
            }
            // A source id that no listed subvolume has: its row has no mounted source.
            let ghost = SnapshotFixtures.subvolume(9_000, path: "gone")
            var volumes = sources
            var next: UInt64 = 1_000
            for _ in 0..<Int.random(in: 0...40, using: &random) {
                let source = Int.random(in: 0..<8, using: &random) == 0 ? ghost : sources.randomElement(using: &random)!
                // Runs of one source, as a snapshot schedule makes them.
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    volumes.append(SnapshotFixtures.snapshot(next, path: "s/\(next)", of: source, daysAgo: 1))
                    next += UInt64.random(in: 1...3, using: &random)
                }
            }
            if round % 3 == 1 { volumes.shuffle(using: &random) }
            if round % 3 == 2, volumes.count > 2 { volumes.swapAt(0, volumes.count - 1) }
            let listing = VolumeListing(filesystem: SnapshotFixtures.filesystem(), subvolumes: volumes, sizes: .none)
            let mounted = Dictionary(volumes.map { ($0.id, $0.mountedPath) }, uniquingKeysWith: { $1 })
            let positions = Array(volumes.indices).shuffled(using: &random)
            let rows = SnapshotRow.rows(at: positions, of: listing, timeZone: .utc)
            for (row, position) in zip(rows, positions) {
                let expected = volumes[position].sourceID.flatMap { mounted[$0] ?? nil }
                #expect(row.sourceMountedPath == expected, "round \(round), subvolume \(volumes[position].id)")
            }
        }
    }
}
