/// NTFS: ntfsresize shrinks it unmounted, to whole clusters.
struct NTFSRoom: FilesystemRoom {
    let rule = ShrinkRule(
        types: ["ntfs"], ability: .offlineOnly, tool: "ntfsresize --size SIZE DEV",
        note: "shrinks while unmounted with ntfsresize")

    func steps(_ subject: ShrinkSubject, to bytes: UInt64) -> ShrinkSteps? {
        ShrinkSteps(before: [
            ResizeStep(
                "ntfsresize --force --size \(bytes) \(shellQuoted(subject.device.path))",
                "shrinks the NTFS to at most \(Self.size(bytes, of: subject)) (ntfsresize rounds down to whole "
                    + "clusters), before its partition")
        ])
    }
}
