/// vfat: fatresize shrinks it unmounted; carve reads no minimum for it, so it gives no steps.
struct VFATRoom: FilesystemRoom {
    let rule = ShrinkRule(
        types: ["vfat"], ability: .offlineOnly, tool: "fatresize -s SIZE DEV",
        note: "shrinks while unmounted with fatresize")
}
