import CarveCore
import CarveLinux
import CarveTestSupport
import Testing

@Suite struct ProcMountTableTests {
    @Test func agreesWithFindmntOnEveryMountpoint() throws {
        let ours = try ProcMountTable().mounts().map(\.mountpoint)
        let theirs = try Shell.check(["findmnt", "-rn", "-o", "TARGET"])
            .split(separator: "\n").map {
                MountInfo.unescape(String($0).replacingOccurrences(of: "\\x20", with: "\\040"))
            }
        #expect(Set(ours) == Set(theirs))
    }
}
