import CarveCore
import CarveTestSupport
import Testing

/// Listing every mounted filesystem while one is unmounted (an automount timing out,
/// another program's scratch mount): the others are listed, the gone one is a warning.
struct SnapshotListRequestTests {
    typealias F = SnapshotFixtures
    let gone = F.filesystem(uuid: F.uuid(1), mountpoint: "/mnt/gone")
    let kept = F.filesystem(uuid: F.uuid(2), mountpoint: "/mnt")

    func backend(failingWith errno: Int32) -> FakeSnapshotBackend {
        let backend = FakeSnapshotBackend([
            .init(filesystem: gone, subvolumes: []),
            .init(filesystem: kept, subvolumes: [F.subvolume(256, path: "home")]),
        ])
        backend.fail(.subvolumes(gone.uuid), with: SystemCallError("cannot open /mnt/gone", call: "open", errno: errno))
        return backend
    }

    func request(_ paths: [String]) -> SnapshotListRequest {
        SnapshotListRequest(paths: paths, selection: SnapshotSelection(), sizes: .none, allSubvolumes: false)
    }

    @Test func aFilesystemUnmountedMidListingIsLeftOutWithAWarning() throws {
        let listings = try request([]).listings(backend: backend(failingWith: Errno.ENOENT))
        #expect(listings.map(\.filesystem.uuid) == [gone.uuid, kept.uuid])
        #expect(listings[0].subvolumes.isEmpty && listings[1].subvolumes.map(\.id) == [256])
        #expect(
            listings[0].warnings == [
                "/mnt/gone was unmounted while carve read it; left out "
                    + "(cannot open /mnt/gone: no such file or directory (ENOENT, open))"
            ])
    }

    @Test func otherErrorsAndNamedFilesystemsStillEndTheRun() {
        #expect(throws: SystemCallError.self) { try request([]).listings(backend: backend(failingWith: Errno.EACCES)) }
        #expect(throws: SystemCallError.self) {
            try request(["/mnt/gone"]).listings(backend: backend(failingWith: Errno.ENOENT))
        }
    }
}
