/// Docker's zfs storage driver: each layer and container a dataset named by its 64-hex
/// ID (`ID-init` for a container's init layer) below the dataset of Docker's data root,
/// each child cloned from a snapshot `PARENT@NUMBER` of its parent layer (the driver
/// names it by the clock's nanoseconds and defers its destroy).
struct DockerZFSOwner: SnapshotOwner {
    var manager: SnapshotManager { .docker }
    var filesystems: [FilesystemKind] { [.zfs] }
    var deletingTool: String? { "docker" }

    func mayOwn(_ path: OwnerPathBytes) -> Bool { path.last.buffer.count > 66 && path.path.contains("@") }

    func recognise(_ place: OwnerPlace, context: OwnerContext) -> OwnerRecognition? {
        guard let (dataset, name) = ZFSSnapshotNames.split(place), !name.isEmpty,
            name.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let layer = dataset.split(separator: "/").last, Self.isLayerID(layer)
        else { return nil }
        return OwnerRecognition(ManagerMetadata(manager: manager, name: String(layer)))
    }

    static func isLayerID(_ text: Substring) -> Bool {
        let id = text.hasSuffix("-init") ? text.dropLast(5) : text
        return id.utf8.count == 64 && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
