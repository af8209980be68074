import CarveTestSupport
import Foundation
import Testing
@testable import CarveCore

/// The nesting parents answer as a set of every parent id does, listed or hashed.
@Suite struct ParentIDsTests {
    @Test(arguments: [0, 1, 3, 8, 9, 40])
    func itAnswersAsASetDoes(distinct: Int) {
        var rng = SplitMix(seed: UInt64(distinct) + 1)
        let ids = (0..<300).map { _ in distinct == 0 ? 5 : UInt64(rng.next() % UInt64(distinct)) * 7 + 5 }
        // Runs of one parent, as siblings come, and parents seen again later.
        let parentIDs = ids.flatMap { Array(repeating: $0, count: Int(rng.next() % 3) + 1) }
        let volumes = parentIDs.enumerated().map { index, parent in
            Volume(id: UInt64(index) + 256, parentID: parent, path: "v\(index)", uuid: "u\(index)", created: .init())
        }
        let parents = ParentIDs(volumes)
        let expected = Set(parentIDs)
        for id in UInt64(0)..<400 { #expect(parents.contains(id) == expected.contains(id), "\(id)") }
    }
}
