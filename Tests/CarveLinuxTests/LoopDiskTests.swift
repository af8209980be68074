import CarveTestSupport
import Foundation
import Testing

/// The test fixture's own promises: an unmount waits out a short "busy", and one that
/// stays busy says who holds it, and cleanup still frees the loop device.
@Suite(.serialized, .integration(needing: "mkfs.ext4"))
struct LoopDiskTests {
    @Test func aBusyUnmountNamesItsHolderAndWorksOnceFreed() throws {
        try withLoopDisk(size: "64M") { disk in
            try Shell.check(["mkfs.ext4", "-q", disk.device])
            let mountpoint = try disk.mount(disk.device)
            try Data("x".utf8).write(to: URL(fileURLWithPath: mountpoint + "/held"))
            let held = try #require(FileHandle(forReadingAtPath: mountpoint + "/held"))
            let busy = #expect(throws: Shell.Failure.self) { try disk.unmount(mountpoint) }
            let said = busy.map { "\($0)" } ?? ""
            #expect(said.contains("busy"), "\(said)")
            #expect(said.contains("held by \(getpid()) ("), "\(said)")
            try held.close()
            try disk.unmount(mountpoint)
            #expect(!Integration.kernelText("/proc/self/mounts").contains(" \(mountpoint) "))
        }
    }

    @Test func cleanupFreesTheDeviceEvenWhenAMountStaysBusy() throws {
        let disk = try LoopDisk(size: "64M")
        try Shell.check(["mkfs.ext4", "-q", disk.device])
        let mountpoint = try disk.mount(disk.device)
        try Data("x".utf8).write(to: URL(fileURLWithPath: mountpoint + "/held"))
        let held = try #require(FileHandle(forReadingAtPath: mountpoint + "/held"))
        disk.cleanup()
        #expect(!Integration.kernelText("/proc/self/mounts").contains(" \(mountpoint) "))
        // The lazily detached filesystem lets the device go once its last file closes.
        try held.close()
        var attached = ""
        for _ in 0..<40 {
            attached = try Shell.check(["losetup", "-a"])
            if !attached.contains(disk.image) { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(!attached.contains(disk.image), "\(attached)")
    }
}
