import CarveCore
@testable import CarveLinux
import Foundation
import Testing

/// The exact scan's hand-out and merge of tree readings, without a filesystem:
/// readings delivered from several threads in any timing give the map of a
/// sequential merge, and the first error stops the hand-out.
@Suite struct OrderedMergeTests {
    func reading(_ tree: UInt64) -> ExtentScanner.TreeReading {
        var reading = ExtentScanner.TreeReading()
        // Extents shared by neighbouring trees, plus one of the tree's own.
        reading.references = PackedReferences(
            (tree..<tree + 3).map { ExtentKey(diskBytenr: $0 * 4096, diskBytes: 4096) }
                + [ExtentKey(diskBytenr: tree << 32, diskBytes: 8192)])
        reading.fileExtents = 4
        reading.items = 10
        return reading
    }

    /// Progress reports, in the order they came.
    final class Reports: @unchecked Sendable {
        private let lock = NSLock()
        private var done: [Int] = []
        func add(_ progress: ExtentScanProgress) { lock.lock(); done.append(progress.subvolumesDone); lock.unlock() }
        var all: [Int] { lock.lock(); defer { lock.unlock() }; return done }
    }

    @Test func readingsFromManyWorkersMergeInTreeOrder() throws {
        let trees = Array(UInt64(256)..<UInt64(296))
        let reports = Reports()
        let merge = OrderedMerge(trees: trees, nodeSize: 16384, window: 4, progress: { reports.add($0) })
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            while let index = merge.take() {
                // Uneven work, so later trees often finish first.
                usleep(useconds_t((index * 7 + worker * 3) % 5) * 200)
                merge.deliver(index, reading(trees[index]))
            }
        }
        let result = try merge.result()
        var sequential = ExtentMap(subvolumes: trees)
        for tree in trees { sequential.addReferences(subvolume: tree, reading(tree).references.unpacked) }
        #expect(result.map == sequential)
        #expect(result.fileExtents == 4 * trees.count)
        #expect(result.items == 10 * trees.count)
        // Non-optional on purpose: under ASan, Swift Testing's capture of a `UInt64?`
        // operand (its AnyHashable conversion thunk) reports a stack-buffer-overflow in
        // the toolchain's code; a missing entry still fails as 0.
        #expect(result.map.exclusiveBytes()[256, default: 0] == 4096 + 8192)
        #expect(reports.all == Array(1...trees.count))
    }

    @Test func theMapNumbersTheTopLevelFirstAndWritableTreesAfterTheReadOnlyOnes() {
        // 256 the writable source, 258 another writable subvolume, the rest snapshots.
        let order = ExtentScanner.mapOrder([259, 5, 256, 257, 258, 260, 257], writable: [5, 256, 258])
        #expect(order == [5, 257, 259, 260, 256, 258])
        #expect(ExtentScanner.mapOrder([258, 5, 257], writable: []) == [5, 257, 258])
    }

    @Test func theFirstErrorStopsTheHandOut() {
        let trees: [UInt64] = [256, 257, 258, 259, 260]
        let merge = OrderedMerge(trees: trees, nodeSize: 16384, window: 4, progress: nil)
        var failing = reading(257)
        failing.error = SystemCallError("cannot read tree 257", call: "ioctl(BTRFS_IOC_TREE_SEARCH_V2)", errno: EIO)
        let first = merge.take(), second = merge.take()
        #expect(first == 0 && second == 1)
        merge.deliver(0, reading(256))
        merge.deliver(1, failing)
        #expect(merge.take() == nil)
        #expect(throws: SystemCallError.self) { try merge.result() }
    }

    /// Ctrl-C: no tree is handed out after it, and the scan ends as interrupted (exit 130).
    @Test func anInterruptionStopsTheHandOut() {
        let merge = OrderedMerge(trees: [256, 257, 258], nodeSize: 16384, window: 4, progress: nil)
        let flag = CancellationFlag()
        merge.cancellation = flag
        #expect(merge.take() == 0)
        merge.deliver(0, reading(256))
        flag.cancel()
        #expect(merge.take() == nil)
        #expect(throws: ScanInterrupted()) { try merge.result() }
        #expect(ScanInterrupted().exitStatus == .interrupted)
    }

    /// At most `window` trees are out ahead of the merge: the next hand-out waits
    /// until the earliest one is delivered, so a slow tree cannot make the others
    /// park every reading.
    @Test func theHandOutWaitsWhenWindowReadingsAreAheadOfTheMerge() {
        let trees: [UInt64] = [256, 257, 258, 259]
        let merge = OrderedMerge(trees: trees, nodeSize: 16384, window: 2, progress: nil)
        #expect(merge.take() == 0 && merge.take() == 1)
        merge.deliver(1, reading(257))
        let handedOut = Reports()
        let waiter = Thread {
            if let index = merge.take() {
                handedOut.add(ExtentScanProgress(subvolumesDone: index, subvolumesTotal: 4, bytesRead: 0))
            }
        }
        waiter.start()
        usleep(100_000)
        #expect(handedOut.all.isEmpty)
        merge.deliver(0, reading(256))
        var waited = 0
        while handedOut.all.isEmpty && waited < 200 { usleep(10_000); waited += 1 }
        #expect(handedOut.all == [2])
    }
}
