/// ext2, ext3, ext4: resize2fs grows them online but shrinks them only unmounted, and
/// only once e2fsck has checked them since their last mount.
struct ExtRoom: FilesystemRoom {
    let rule = ShrinkRule(
        types: ["ext2", "ext3", "ext4"], ability: .offlineOnly, tool: "resize2fs DEV SIZE",
        note: "shrinks only while unmounted (resize2fs grows online but shrinks offline)")

    func steps(_ subject: ShrinkSubject, to bytes: UInt64) -> ShrinkSteps? {
        let device = shellQuoted(subject.device.path)
        return ShrinkSteps(before: [
            ResizeStep(
                "e2fsck -f -y \(device)",
                "resize2fs shrinks only a filesystem checked since its last mount; exit status 1 means "
                    + "e2fsck repaired something: stop and run carve check again"),
            ResizeStep(
                "resize2fs \(device) \(bytes / 1024)K",
                "shrinks the filesystem to \(Self.size(bytes, of: subject)), before its partition; K is KiB to "
                    + "resize2fs, so the size is exact"),
        ])
    }
}
