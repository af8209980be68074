/// systemd-nspawn's machines: `/var/lib/machines/NAME` (`machinectl clone` makes a
/// snapshot there, `machinectl pull-*` and `import-*` their `.#NAME…` temporaries),
/// whether `/var/lib/machines` is a directory of the root subvolume or a subvolume of its own.
struct MachinesOwner: SnapshotOwner {
    var manager: SnapshotManager { .machines }
    var pathHints: [StaticString] { ["machines/"] }
    var deletingTool: String? { "machinectl" }

    func recognise(_ place: OwnerPlace, context: OwnerContext) -> OwnerRecognition? {
        guard place.find(["var", "lib", "machines"]) != nil else { return nil }
        return OwnerRecognition(ManagerMetadata(manager: manager, name: place.components.last.map(String.init)))
    }
}

extension SnapshotManager {
    public static let machines = SnapshotManager(rawValue: "machines")
}
