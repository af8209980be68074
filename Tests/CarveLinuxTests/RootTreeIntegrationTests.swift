import CarveCore
@testable import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// The bulk root-tree read (`RootTree`) against libbtrfsutil's per-subvolume iterator
/// on the same real filesystem: both must describe every subvolume identically.
@Suite(.serialized, .integration())
struct RootTreeIntegrationTests {
    typealias Btrfs = SnapshotsListIntegrationTests.Btrfs

    /// What libbtrfsutil says, as the listing's model.
    func iterated(_ mountpoint: String) throws -> [Volume] {
        let iterator = try SubvolumeIterator(try FileDescriptor(directory: mountpoint), top: 5)
        var found: [Volume] = []
        while let (path, info) = try iterator.next() { found.append(Volume(path: path, info: info)) }
        return found.sorted { $0.id < $1.id }
    }

    func expectSame(_ bulk: [Volume], _ reference: [Volume]) {
        #expect(bulk.map(\.id) == reference.map(\.id))
        for (ours, theirs) in zip(bulk, reference) {
            #expect(ours.path == theirs.path, "subvolume \(ours.id)")
            #expect(ours.parentID == theirs.parentID, "subvolume \(ours.id)")
            #expect(
                ours.uuid == theirs.uuid && ours.parentUUID == theirs.parentUUID
                    && ours.receivedUUID == theirs.receivedUUID,
                "subvolume \(ours.id)")
            #expect(ours.generation == theirs.generation && ours.readOnly == theirs.readOnly, "subvolume \(ours.id)")
            #expect(ours.created == theirs.created, "subvolume \(ours.id)")
        }
    }

    @Test func everySubvolumeAsLibbtrfsutilDescribesIt() throws {
        let fs = try Btrfs()
        try fs.subvolume("@"); try fs.subvolume("@home"); try fs.subvolume("@home/nested")
        try FileManager.default.createDirectory(atPath: fs.top + "/deep/er/still", withIntermediateDirectories: true)
        try fs.subvolume("deep/er/still/data")
        try fs.snapshot("@home", "snaps/with space/home 1")
        try fs.snapshot("@home", "snaps/line\nbreak")
        try fs.snapshot("@home", "snaps/writable", readOnly: false)
        try fs.snapshot("@", "snaps/writable/inside/a-snapshot")
        try fs.snapshot("deep/er/still/data", "@home/nested/snap-of-deep")
        // A received snapshot carries a received UUID.
        try FileManager.default.createDirectory(atPath: fs.top + "/received", withIntermediateDirectories: true)
        let send = try Shell.run([
            "bash", "-c", "btrfs -q send \"$1\" | btrfs -q receive \"$2\"", "-", fs.top + "/snaps/line\nbreak",
            fs.top + "/received",
        ])
        #expect(send.status == 0, "\(send.stderr)")
        // One deleted and not yet cleaned: neither lists it.
        try fs.snapshot("@home", "snaps/deleted")
        try Shell.check(["btrfs", "-q", "subvolume", "delete", fs.top + "/snaps/deleted"])

        let bulk = try RootTree(directory: try FileDescriptor(directory: fs.top)).subvolumes()
        let reference = try iterated(fs.top)
        #expect(bulk.count == 10)
        #expect(bulk.contains { $0.receivedUUID != nil })
        expectSame(bulk, reference)
    }

    @Test func readThroughASubvolumeMountTheWholeFilesystemIsListed() throws {
        let fs = try Btrfs()
        try fs.subvolume("@"); try fs.subvolume("@home")
        try fs.snapshot("@home", "@/.snapshots/1/snapshot")
        try fs.snapshot("@", "outside/root-1")
        let mounted = try fs.disk.mount(fs.disk.device, options: "subvol=@home", name: "at-home")
        let bulk = try RootTree(directory: try FileDescriptor(directory: mounted)).subvolumes()
        #expect(bulk.map(\.path).sorted() == ["@", "@/.snapshots/1/snapshot", "@home", "outside/root-1"])
        expectSame(bulk, try iterated(fs.top))
    }
}
