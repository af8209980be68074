@testable import CarveCore
import CarveTestSupport
import Foundation
import Testing

@Suite struct SnapshotResolverTests {
    typealias F = SnapshotFixtures
    let backend: FakeSnapshotBackend
    let other = F.filesystem(uuid: "f5c3e1d2-0000-4000-8000-000000000002", mountpoint: "/srv")

    init() {
        let root = F.subvolume(257, path: "@")
        func snapper(_ number: Int, _ id: UInt64) -> Volume {
            F.snapshot(
                id, path: "@/.snapshots/\(number)/snapshot", of: root, daysAgo: Double(50 - number),
                metadata: ManagerMetadata(manager: .snapper, config: "root", number: number))
        }
        backend = FakeSnapshotBackend([
            .init(
                filesystem: F.filesystem(),
                subvolumes: [
                    root, snapper(3, 300), snapper(4, 301), snapper(9, 302),
                    F.snapshot(303, path: "plain", of: root, daysAgo: 1),
                ]),
            .init(filesystem: other, subvolumes: [F.snapshot(400, path: "x", of: nil, daysAgo: 1, mountedAt: "/srv")]),
        ])
        backend.setForeign("/home/ext4", error: RuntimeError("/home/ext4 is on ext4: it has no btrfs snapshots"))
    }

    func resolver(scope: [String]? = nil) throws -> SnapshotResolver {
        let filesystems = try backend.mountedFilesystems().filter { scope == nil || scope!.contains($0.mountpoint) }
        return SnapshotResolver(
            backend: backend, listings: try filesystems.map { try backend.subvolumes(of: $0, sizes: .quota) },
            scoped: scope != nil)
    }

    func ids(_ name: String, scope: [String]? = nil) throws -> [UInt64] {
        try resolver(scope: scope).resolve(SnapshotName.parse(name)).map(\.subvolume.id)
    }

    @Test func namesResolveToSnapshots() throws {
        #expect(try ids("/mnt/plain") == [303])
        #expect(try ids("/mnt/./@/.snapshots/3/snapshot/") == [300])
        #expect(try ids("root:4") == [301])
        #expect(try ids("root:3-8") == [300, 301])
        #expect(try ids("root:5-8").isEmpty)
        #expect(try resolver().resolve(SnapshotName.parse("root:9")).allSatisfy(\.named))
        #expect(try resolver(scope: ["/srv"]).resolve(id: 400).subvolume.path == "x")
    }

    @Test(arguments: [
        ("/mnt/nothing-here", "no such file or directory"),
        ("root:5", "has no snapshot 5"),
        ("home:1", "no snapper config 'home'"),
        ("/home/ext4", "ext4"),
        ("/mnt", "no subvolume starts there"),
    ])
    func badNamesAreUsageErrors(name: String, reason: String) throws {
        let resolver = try resolver()
        do {
            _ = try resolver.resolve(SnapshotName.parse(name))
            Issue.record("\(name) resolved")
        } catch let error as UsageError {
            #expect(error.message.contains(reason), "\(error.message)")
        }
    }

    @Test func aPathOnAnotherFilesystemThanTheScopeIsAnError() throws {
        #expect(throws: UsageError.self) { try ids("/srv/x", scope: ["/mnt"]) }
        #expect(try ids("/srv/x") == [400])
    }

    @Test func anIdNeedsOneFilesystem() throws {
        #expect(throws: UsageError.self) { try resolver().resolve(id: 300) }
        #expect(throws: UsageError.self) { try resolver(scope: ["/mnt"]).resolve(id: 999) }
        #expect(try resolver(scope: ["/mnt"]).resolve(id: 300).subvolume.id == 300)
    }
}

/// Naming many snapshots: each path is located once and resolves by volume id, without
/// a filesystem lookup or a search per name.
@Suite struct LocatedNamesTests {
    typealias F = SnapshotFixtures

    @Test func namedPathsResolveByTheirLocationWithoutALookupEach() throws {
        let root = F.subvolume(256, path: "data")
        let snapshots = (0..<300).map { F.snapshot(1000 + UInt64($0), path: "snaps/s\($0)", of: root, daysAgo: 1) }
        let backend = FakeSnapshotBackend([.init(filesystem: F.filesystem(), subvolumes: [root] + snapshots)])
        let names = stride(from: 0, to: 300, by: 3).map { "/mnt/snaps/s\($0)" }
        let request = try DeleteRequest(names: names, ids: [], filesystems: [], selection: SnapshotSelection())
        let plan = try request.plan(backend: backend, rules: DeletionRules(), now: F.epoch)
        #expect(plan.toDelete.map(\.subvolume.path).sorted() == names.map { String($0.dropFirst(5)) }.sorted())
        let lookups = backend.calls.filter { if case .filesystemContaining = $0 { true } else { false } }
        #expect(lookups.isEmpty, "\(lookups.count) filesystem lookups for \(names.count) located names")
        #expect(backend.calls.filter { if case .subvolumes = $0 { true } else { false } }.count == 1)
    }

    /// A name that no location places takes the full resolution, with its errors.
    @Test func anUnlocatedNameTakesTheFullResolution() throws {
        let root = F.subvolume(256, path: "data")
        let snapshot = F.snapshot(300, path: "snaps/s1", of: root, daysAgo: 1)
        let backend = FakeSnapshotBackend([.init(filesystem: F.filesystem(), subvolumes: [root, snapshot])])
        let listing = try backend.subvolumes(of: F.filesystem(), sizes: .none)
        let located = LocatedPaths(["/mnt/snaps/s1", "/mnt/snaps/s1/dir"], backend: backend, among: [F.filesystem()])
        #expect(located["/mnt/snaps/s1"]?.volumeID == 300)
        let resolver = SnapshotResolver(backend: backend, listings: [listing], scoped: false, located: located)
        #expect(try resolver.resolve(SnapshotName.parse("/mnt/snaps/s1")).map(\.subvolume.id) == [300])
        #expect(located["/mnt/snaps/s1/dir"] == nil)
        #expect(throws: UsageError.self) { try resolver.resolve(SnapshotName.parse("/mnt/snaps/s1/dir")) }
    }
}

/// `absolute` normalises; its fast path must agree with the full one on every shape.
@Test(arguments: [
    "/", "/mnt", "/mnt/a/b", "/mnt/", "/mnt//a", "/mnt/./a", "/mnt/../a", "/mnt/a/.", "/mnt/a/..",
    "/.", "/..", "/...", "/a..b/.c/..d", "/mnt/.hidden", "//", "relative/x",
])
func absolutePathsAreNormalised(path: String) {
    let expected: String = {
        let joined = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var parts: [Substring] = []
        for part in joined.split(separator: "/") {
            if part == "." { continue }
            if part == ".." { _ = parts.popLast(); continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }()
    #expect(SnapshotResolver.absolute(path, from: FileManager.default.currentDirectoryPath) == expected)
}
