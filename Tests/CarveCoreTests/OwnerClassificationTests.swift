import CarveCore
import CarveTestSupport
import Foundation
import Synchronization
import Testing

/// Every backend's listing is classified once, by the registry, with the owners it was
/// given: backends list plain volumes and the facts owners need.
@Suite struct OwnerClassificationTests {
    typealias F = SnapshotFixtures

    /// A backend that lists `volumes` plain, with `facts`, and records what `finishListing` saw.
    struct PlainLister: SnapshotListing {
        let filesystem: Filesystem
        let volumes: [Volume]
        let facts: OwnerFacts?
        let finished = Recorded<[SnapshotManager]>()

        func mountedFilesystems() throws -> [Filesystem] { [filesystem] }
        func filesystem(containing path: String) throws -> Filesystem { filesystem }
        func locate(_ path: String, among filesystems: [Filesystem]) -> VolumeLocation? { nil }
        func subvolumes(of filesystem: Filesystem, sizes: SizeMode) throws -> VolumeListing {
            var listing = VolumeListing(
                filesystem: filesystem, subvolumes: volumes, sizes: .none, warnings: ["the backend's"])
            listing.ownerFacts = facts
            return listing
        }
        func finishListing(_ listing: inout VolumeListing, sizes: SizeMode) throws {
            finished.append(listing.subvolumes.map(\.metadata.manager))
            listing.warnings.append("finished")
        }
    }

    /// The host: snapper's `.snapshots` for every filesystem, its files, and what was asked.
    final class Host: OwnerPreparing {
        let asked = Recorded<String>()
        let files: [String: String]
        init(files: [String: String] = [:]) { self.files = files }

        func prepare(_ settings: inout OwnerSettings, for filesystem: Filesystem) -> [String] {
            asked.append("prepare " + filesystem.kind.rawValue)
            settings[SnapperOwner.Directories.self] = SnapperOwner.Directories(
                all: [.init(config: "data", topLevelPath: "data/.snapshots")])
            return ["the rooms'"]
        }

        func hostFiles() -> (read: OwnerContext.FileReader, probe: OwnerProbe) {
            asked.append("files")
            let files = self.files
            return ({ path, _ in files[path].map { Array($0.utf8) } }, { _ in false })
        }
    }

    /// What a fake was asked, in order.
    final class Recorded<Item: Sendable>: Sendable {
        private let items = Mutex<[Item]>([])
        func append(_ item: Item) { items.withLock { $0.append(item) } }
        var all: [Item] { items.withLock { $0 } }
    }

    static let info = """
        <?xml version="1.0"?>
        <snapshot><type>single</type><num>1</num><date>2026-11-01 00:00:00</date><description>first</description></snapshot>
        """

    func registry(_ lister: PlainLister, kind: FilesystemKind, host: Host) -> SnapshotBackendRegistry {
        var registry = SnapshotBackendRegistry(FakeSnapshotBackend(), for: .btrfs)
        registry.register(listingOnly: lister, for: kind)
        registry.owners = host
        return registry
    }

    func plain(_ id: UInt64, _ path: String, parentUUID: SubvolumeUUID? = nil) -> Volume {
        Volume(
            id: id, path: path, mountedPath: "/mnt/" + path, uuid: F.uuid(id), parentUUID: parentUUID,
            created: F.epoch, readOnly: true, isSnapshot: false)
    }

    @Test func aBtrfsListingIsClassifiedWithTheHostsPreparationBeforeTheBackendFinishesIt() throws {
        let filesystem = F.filesystem()
        let lister = PlainLister(
            filesystem: filesystem,
            volumes: [plain(256, "data"), plain(258, "data/.snapshots/1/snapshot", parentUUID: F.uuid(256))],
            facts: OwnerFacts(files: .host, timeZone: .utc))
        let host = Host(files: ["/mnt/data/.snapshots/1/info.xml": Self.info])
        let listing = try registry(lister, kind: .btrfs, host: host).subvolumes(of: filesystem, sizes: .none)
        #expect(listing.subvolumes.map(\.metadata.manager) == [.plain, .snapper])
        #expect(listing.subvolumes[1].isSnapshot && listing.subvolumes[1].sourcePath == "data")
        #expect(listing.ownerFacts == nil)
        #expect(listing.warnings == ["the backend's", "the rooms'", "finished"])
        #expect(lister.finished.all == [[.plain, .snapper]], "finished after the owners spoke")
        #expect(host.asked.all == ["prepare btrfs", "files"])
    }

    /// LVM-thin goes through the same classifier: the origin makes a snapshot, and a name
    /// in btrbk's form is no one's there (no owner lives on LVM), so it stays plain.
    @Test func lvmThinVolumesAreClassifiedByTheSameStep() throws {
        let pool = Filesystem(
            kind: .lvmThin, uuid: "p", devices: [],
            mounts: [FilesystemMount(mountpoint: "vg0/pool", subvolumePath: "/", subvolumeID: 0)])
        let lister = PlainLister(
            filesystem: pool,
            volumes: [plain(1, "vg0/root"), plain(2, "vg0/root.20261102", parentUUID: F.uuid(1))],
            facts: OwnerFacts(files: .only([]), timeZone: .utc))
        let host = Host()
        let listing = try registry(lister, kind: .lvmThin, host: host).subvolumes(of: pool, sizes: .none)
        #expect(listing.subvolumes.map(\.isSnapshot) == [false, true])
        #expect(listing.subvolumes.map(\.metadata.manager) == [.plain, .plain])
        #expect(host.asked.all == ["prepare lvm-thin"], "no host files read for LVM")
        #expect(lister.finished.all.count == 1)
    }

    /// A listing without facts (a fake's, already classified) is the backend's answer as it stands.
    @Test func aListingWithoutFactsIsLeftAsItIs() throws {
        let filesystem = F.filesystem()
        var snapshot = plain(258, "data/.snapshots/1/snapshot")
        snapshot.metadata = ManagerMetadata(manager: .snapper)
        let lister = PlainLister(filesystem: filesystem, volumes: [snapshot], facts: nil)
        let host = Host()
        let listing = try registry(lister, kind: .btrfs, host: host).subvolumes(of: filesystem, sizes: .none)
        #expect(listing.subvolumes.map(\.metadata.manager) == [.snapper])
        #expect(listing.warnings == ["the backend's"])
        #expect(host.asked.all.isEmpty && lister.finished.all.isEmpty)
    }
}
