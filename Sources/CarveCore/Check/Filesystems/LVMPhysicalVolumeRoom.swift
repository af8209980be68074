/// An LVM physical volume: pvresize and the volume group's layout decide; not supported yet.
struct LVMPhysicalVolumeRoom: FilesystemRoom {
    let rule = ShrinkRule(
        types: ["LVM2_member"], ability: .unknown, tool: nil,
        note: "LVM physical volume: not supported yet, cannot tell")
}
