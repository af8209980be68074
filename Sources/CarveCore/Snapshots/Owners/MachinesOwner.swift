/// systemd-nspawn's machines: `/var/lib/machines/NAME` (`machinectl clone` makes a
/// snapshot there, `machinectl pull-*` and `import-*` their `.#NAME…` temporaries),
/// whether `/var/lib/machines` is a directory of the root subvolume or a subvolume of its own.
struct MachinesOwner: SnapshotOwner {
    var manager: SnapshotManager { .machines }
    var pathHints: [StaticString] { ["machines/"] }
    var deletingTool: String? { "machinectl" }

    func recognise(_ place: OwnerPlace, probe: OwnerProbe) -> ManagerMetadata? {
        guard place.find(["var", "lib", "machines"]) != nil else { return nil }
        return ManagerMetadata(manager: manager, name: place.components.last.map(String.init))
    }
}
