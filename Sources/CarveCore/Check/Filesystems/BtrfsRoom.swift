/// btrfs: shrinks only while mounted, one device of it at a time; the chunks beyond the
/// new end are relocated by the resize itself.
struct BtrfsRoom: FilesystemRoom {
    let rule = ShrinkRule(
        types: ["btrfs"], ability: .onlineOnly, tool: "btrfs filesystem resize SIZE MOUNTPOINT",
        note: "shrinks only while mounted; chunks beyond the new end are relocated")

    func steps(_ subject: ShrinkSubject, to bytes: UInt64) -> ShrinkSteps? {
        guard let mountpoint = subject.mountpoints.first else { return nil }
        let devid = subject.figures.btrfs?.devid ?? 1
        return ShrinkSteps(before: [
            ResizeStep(
                "btrfs filesystem resize \(devid):\(bytes) \(shellQuoted(mountpoint))",
                "shrinks device \(devid) of the mounted btrfs to \(Self.size(bytes, of: subject)), relocating the chunks "
                    + "beyond the new end, before its partition")
        ])
    }
}
