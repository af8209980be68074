@testable import CarveCLI
import CarveCore
import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// Sends an in-process run's output nowhere: the test looks at the filesystem.
private struct DiscardedOutput: OutputSink {
    func write(_ text: String) {}
    func writeError(_ text: String) {}
}

@Suite(.serialized, .integration())
struct InProcessDeleteTests {
    /// carve used as a library must not keep the filesystem busy after a run: the
    /// directories a deletion opens close with the run's services.
    @Test func aDeleteRunInProcessLeavesTheMountUnbusy() throws {
        try withLoopDisk(size: "300M") { disk in
            try Shell.check(["mkfs.btrfs", "-q", "-f", disk.device])
            let mountpoint = try disk.mount(disk.device)
            try Shell.check(["btrfs", "-q", "subvolume", "snapshot", "-r", mountpoint, mountpoint + "/snap"])
            let arguments = ["snapshots", "delete", "--yes", "--wait", mountpoint + "/snap"]
            #expect(deleteInProcess(arguments, lockFile: disk.directory + "/carve.lock") == 0)
            #expect(!FileManager.default.fileExists(atPath: mountpoint + "/snap"))
            try disk.unmount(mountpoint)
        }
    }

    /// One run with the real system's services, released when it returns.
    private func deleteInProcess(_ arguments: [String], lockFile: String) -> Int32 {
        var services = Services.system()
        services.output = DiscardedOutput()
        var deletion = DeletionServices.system()
        deletion.lock = FileDeletionLock(path: lockFile)
        return Services.$current.withValue(services) {
            DeletionServices.$current.withValue(deletion) { CarveMain.run(arguments) }
        }
    }
}
