import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// An owner is its own type, registered once in `SnapshotOwners.all`: the classifier, the
/// protections, the marking and `--manager` all read the registry.
@Suite struct SnapshotOwnersTests {
    typealias F = SnapshotFixtures

    /// An owner no part of carve knows: LXC's `/var/lib/lxc/NAME/rootfs` subvolumes.
    struct LXCOwner: SnapshotOwner {
        var manager: SnapshotManager { SnapshotManager(rawValue: "lxc") }
        var pathHints: [StaticString] { ["lxc/"] }
        var deletingTool: String? { "lxc-destroy" }
        func recognise(_ place: OwnerPlace, context: OwnerContext) -> OwnerRecognition? {
            guard place.find(["var", "lib", "lxc"], after: 2) != nil, place.components.last == "rootfs" else {
                return nil
            }
            return OwnerRecognition(ManagerMetadata(manager: manager, name: String(place.components.dropLast().last!)))
        }
    }

    func volume(_ id: UInt64, _ path: String, readOnly: Bool = false) -> Volume {
        Volume(
            id: id, path: path, mountedPath: "/mnt/" + path, uuid: F.uuid(id), parentUUID: F.uuid(1),
            created: F.epoch, readOnly: readOnly, isSnapshot: false)
    }

    @Test func theNamesAreTheRegisteredOwnersManagersFirstThenPlainThenEngines() {
        #expect(
            SnapshotManager.allCases.map(\.rawValue) == [
                "snapper", "timeshift", "btrbk", "zfs-auto-snapshot", "sanoid", "syncoid", "zrepl",
                "proxmox-replication", "znapzend", "plain", "docker", "podman", "machines", "incus",
            ])
        for kind in FilesystemKind.allCases {
            let owners = SnapshotOwners.all(for: kind)
            #expect(Set(owners.map(\.manager)).count == owners.count, "one owner per name on \(kind.rawValue)")
        }
        // An engine on btrfs and on ZFS is one name with two layouts.
        #expect(SnapshotOwners.all(for: .zfs).filter { $0.deletingTool != nil }.map(\.manager) == [.docker, .incus])
        #expect(SnapshotManager(known: "podman") == .podman)
        #expect(SnapshotManager(known: "lxc") == nil, "a name no owner registered")
        #expect(SnapshotOwners.owner(.plain) == nil)
        #expect(SnapshotOwners.all.filter(\.marksDeletion).map(\.manager) == [.snapper, .timeshift])
    }

    /// The classifier asks an owner once per directory when it decides by directory: one
    /// btrfs owner whose hint did not end in "/" made each of ten thousand paths searched
    /// for every hint. Those that look at the name itself (snapper's `snapshot`, timeshift's
    /// `@…`, btrbk's date) are asked per subvolume.
    @Test func everyBtrfsOwnerThatNeedNotSeeTheNameDecidesByDirectory() {
        let byDirectory = SnapshotOwners.all(for: .btrfs).filter(\.decidesByDirectory).map(\.manager)
        #expect(byDirectory == [.docker, .podman, .machines, .incus])
        for owner in SnapshotOwners.all(for: .btrfs) where !owner.pathHints.isEmpty {
            #expect(owner.pathHints.allSatisfy { $0.description.hasSuffix("/") }, "\(owner.manager.rawValue)")
        }
    }

    @Test func aManagerIsEncodedAsItsNameAlone() throws {
        let encoded = try JSONEncoder().encode([SnapshotManager.podman, .plain])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["podman","plain"]"#)
        #expect(try JSONDecoder().decode([SnapshotManager].self, from: encoded) == [.podman, .plain])
    }

    @Test func anOwnerAddedToTheListIsAskedInItsTurn() {
        let volumes = [
            volume(256, "var/lib/lxc/web/rootfs"), volume(257, "data/.snapshots/3/snapshot"),
            volume(258, "backups/home.20260101", readOnly: true), volume(259, "snaps/plain"),
        ]
        let context = OwnerContext(timeZone: .utc, readFile: { _, _ in nil })
        let known = SnapshotClassifier(context: context).classify(volumes).subvolumes
        #expect(known.map(\.metadata.manager.rawValue) == ["plain", "snapper", "btrbk", "plain"])
        let extended = SnapshotClassifier(context: context, owners: [LXCOwner()] + SnapshotOwners.all)
            .classify(volumes).subvolumes
        #expect(extended.map(\.metadata.manager.rawValue) == ["lxc", "snapper", "btrbk", "plain"])
        #expect(extended[0].metadata.name == "web")
    }

    @Test func snappersOwnRulesComeFromItsOwner() {
        var zero = volume(300, "data/.snapshots/0/snapshot")
        zero.isSnapshot = true
        zero.metadata = ManagerMetadata(manager: .snapper, number: 0, important: true)
        #expect(DeletionRules().protections(of: zero) == [.snapperZero, .important])
        #expect(DeletionRules(includeImportant: true).protections(of: zero) == [.snapperZero])
        #expect(SnapperOwner().protections(of: zero, rules: DeletionRules()) == [.snapperZero, .important])
        #expect(TimeshiftOwner().protections(of: zero, rules: DeletionRules()).isEmpty)
    }
}
