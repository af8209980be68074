@testable import CarveCLI
import CarveCore
import Testing

/// The time left a long scan shows: the trees left at the pace of those read.
@Suite struct ScanProgressLineTests {
    func progress(_ done: Int, of total: Int) -> ExtentScanProgress {
        ExtentScanProgress(subvolumesDone: done, subvolumesTotal: total, bytesRead: 0)
    }

    @Test func theTimeLeftFollowsThePaceSoFar() {
        #expect(ScanProgressLine.remaining(progress(10, of: 40), elapsed: 3) == ", about 9s left")
        #expect(ScanProgressLine.remaining(progress(1, of: 50), elapsed: 5) == ", about 4 min left")
    }

    @Test func noEstimateBeforeThereIsAPaceOrWhenDone() {
        #expect(ScanProgressLine.remaining(progress(0, of: 40), elapsed: 3) == "")
        #expect(ScanProgressLine.remaining(progress(5, of: 40), elapsed: 0.5) == "")
        #expect(ScanProgressLine.remaining(progress(40, of: 40), elapsed: 9) == "")
    }
}
