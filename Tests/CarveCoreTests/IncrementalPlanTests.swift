import CarveCore
import Foundation
import Testing

/// Which trees are read only where they changed: from a kept state of the writable tree
/// 256 (read from generation 10 to 12), its snapshots taken since in creation order,
/// then the tree itself; and each case a kept state cannot vouch for read whole.
@Suite struct IncrementalPlanTests {
    func cache() -> ExactSizesCache {
        let state = WritableTreeState(readFrom: 10, readUntil: 12, records: InodeRecords())
        var map = ExtentMap(subvolumes: [300, 256])
        map.addReferences(subvolume: 300, [ExtentKey(diskBytenr: 4096, diskBytes: 4096)])
        let exact = ExactSizes(map: map, scan: .init(), nodeSize: 16384, treeBytes: [300: 16384])
        let snapshot = Volume(id: 300, path: "s300", uuid: "u300", parentUUID: "u256", generation: 8, created: .init())
        return ExactSizesCache(
            filesystem: "f", keeping: [snapshot], of: exact,
            states: [.init(id: 256, uuid: "u256", generation: 12, state: state)])
    }

    let source = Volume(id: 256, path: "data", uuid: "u256", generation: 20, created: .init(), readOnly: false)

    func snapshot(_ id: UInt64, created: UInt64, generation: UInt64? = nil, of parent: SubvolumeUUID = "u256") -> Volume
    {
        var volume = Volume(
            id: id, path: "s\(id)", uuid: "u\(id)", parentUUID: parent, generation: generation ?? created,
            created: .init())
        volume.createdGeneration = created
        return volume
    }

    func plan(
        _ subvolumes: [Volume], live: IncrementalPlan.Live? = .init(uuid: "u256", generation: 20, isChanging: false)
    )
        -> IncrementalPlan
    {
        let cache = cache()
        return IncrementalPlan(
            cache: cache, subvolumes: subvolumes, reused: cache.reusable(for: subvolumes),
            live: live.map { [256: $0] } ?? [:])
    }

    @Test func snapshotsTakenSinceAreReadFromTheStateThenTheTreeItself() {
        let volumes = [
            source, snapshot(300, created: 8), snapshot(301, created: 11), snapshot(302, created: 13),
            snapshot(303, created: 15, generation: 16), snapshot(304, created: 17),
            snapshot(305, created: 18, of: "u9"),
        ]
        let plan = plan(volumes)
        #expect(plan.carried == [256: 1])
        #expect(plan.notes.isEmpty)
        // 300 is cached; 301 was taken while the state was read; 305 is of another tree.
        #expect(
            plan.chains.map { $0.steps.map { [$0.tree, $0.threshold] } } == [
                [[302, 11], [303, 13], [304, 13], [256, 17]]
            ])
        #expect(plan.chains[0].steps.map(\.continues) == [true, false, true, false])
        #expect(plan.derived == [302, 303, 304, 256])
    }

    @Test func aTreeTheStateCannotVouchForIsReadWhole() {
        var other = source
        other.uuid = "u999"
        var readOnly = source
        readOnly.readOnly = true
        var older = source
        older.generation = 9
        let cases: [(String, [Volume], IncrementalPlan.Live?)] = [
            ("another subvolume took its id", [other], .init(uuid: "u999", generation: 20, isChanging: false)),
            ("its generation went back", [older], .init(uuid: "u256", generation: 9, isChanging: false)),
            ("an open transaction is changing it", [source], .init(uuid: "u256", generation: 20, isChanging: true)),
            ("it is read-only now", [readOnly], nil),
            ("it cannot be opened to ask the kernel", [source], nil),
        ]
        for (why, volumes, live) in cases {
            let plan = plan(volumes + [snapshot(302, created: 13)], live: live)
            #expect(plan.carried.isEmpty, "\(why)")
            #expect(plan.notes == ["subvolume 256 read whole: \(why)"], "\(why)")
            // A snapshot taken of the cached tree since is still read from the state: it cannot change.
            #expect(plan.derived == [302], "\(why)")
        }
        #expect(plan([snapshot(302, created: 13)]).notes.isEmpty, "a deleted tree is no news")
    }
}
