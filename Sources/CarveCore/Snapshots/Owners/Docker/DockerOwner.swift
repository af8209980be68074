/// Docker's btrfs storage driver: `/var/lib/docker/btrfs/subvolumes/ID` (and `ID-init`),
/// wherever its data root lives, recognised by `image/btrfs` beside it.
struct DockerOwner: SnapshotOwner {
    var manager: SnapshotManager { .docker }
    var pathHints: [StaticString] { ["btrfs/subvolumes/"] }
    var deletingTool: String? { "docker" }

    func recognise(_ place: OwnerPlace, context: OwnerContext) -> OwnerRecognition? {
        guard GraphDriverLayout.engine(of: place, probe: context.probe) == .docker else { return nil }
        return OwnerRecognition(GraphDriverLayout.metadata(manager, place))
    }
}

extension SnapshotManager {
    public static let docker = SnapshotManager(rawValue: "docker")
}
