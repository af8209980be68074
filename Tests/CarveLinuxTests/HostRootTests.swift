import CarveCore
import Foundation
import Testing
@testable import CarveLinux
import CarveTestSupport

/// Every reader of /sys, /proc, /etc and /run goes through one host root: one
/// fixture tree drives them all, and nothing of the real machine leaks in.
@Suite struct HostRootTests {
    @Test func theRootIsAPrefixWithoutItsTrailingSlashes() {
        #expect(HostRoot().path("/proc/swaps") == "/proc/swaps")
        #expect(HostRoot("/").prefix == "")
        #expect(HostRoot("/tmp/fix//").path("/sys/class/block") == "/tmp/fix/sys/class/block")
    }

    @Test func oneFixtureTreeDrivesEveryReader() throws {
        let root = try HostFixture.make()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let host = HostRoot(root)

        let devices = try LinuxDeviceSource(host: host).devices()
        #expect(devices.map(\.name) == ["carvefix", "carvefix1", "carvefix2"])
        #expect(devices.map(\.mountpoints) == [[], ["/srv/fix"], ["[SWAP]"]])
        #expect(try ProcMountTable(host: host).mounts().map(\.mountpoint) == ["/srv/fix"])
        #expect(!UdevDaemon.isRunning(host: host), "the fixture has no udev control socket")
        #expect(SnapperConfigFiles(host: host).load().configs.map(\.name) == ["fix"])
        let swap = try SwapSizing().swap(devices[2], host: host)
        #expect(swap.busy == "an active swap area (/proc/swaps)")
        #expect(try SwapSizing().swap(devices[1], host: host).busy == nil)
    }

    @Test func aMissingMountTableIsAnErrorNamingIt() throws {
        let root = try Integration.makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(throws: SystemCallError.self) { try ProcMountTable(host: HostRoot(root)).mounts() }
    }

    /// The table is read once and again only after a mount or unmount changes it.
    @Test(.integration()) func theMountTableIsReReadAfterAMount() throws {
        let table = ProcMountTable()
        let before = try table.mounts()
        #expect(try table.mounts() == before)
        let directory = try Integration.makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(mount("carve-test", directory, "tmpfs", 0, nil) == 0)
        defer { umount(directory) }
        #expect(try table.mounts().map(\.mountpoint) == before.map(\.mountpoint) + [directory])
    }
}
