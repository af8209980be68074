import CarveCore
import CarveLinux
import Foundation
import Testing
@testable import CarveCLI
import CarveTestSupport

/// The machine's services built on a fixture tree: what the commands read of /sys,
/// /proc, /etc and /run comes from that tree alone.
@Suite struct HostFixtureCommandTests {
    func system(on root: String) -> (CapturedText) -> Services {
        { captured in
            var services = Services.system(host: HostRoot(root))
            services.output = captured
            return services
        }
    }

    @Test func devicesListsTheFixtureHost() throws {
        let root = try HostFixture.make()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let result = runCarve(["devices", "-rno", "NAME,TYPE,MOUNTPOINT"], services: system(on: root))
        #expect(result.stderr == "")
        #expect(result.stdout == "carvefix disk \ncarvefix1 part /srv/fix\ncarvefix2 part [SWAP]\n")
        #expect(result.status == 0)
    }

    @Test func snapshotCompletionReadsTheFixtureSnapperConfigs() throws {
        let root = try HostFixture.make()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(
            atPath: root + "/srv/fix/.snapshots/3", withIntermediateDirectories: true)
        #expect(SnapshotCompletion(host: HostRoot(root)).candidates(for: "fix:") == ["fix:3"])
    }
}
