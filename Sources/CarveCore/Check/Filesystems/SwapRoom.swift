/// A swap area holds nothing to keep: it is recreated at the new size once the
/// partition has shrunk, with its UUID and label, while not in use.
struct SwapRoom: FilesystemRoom {
    let rule = ShrinkRule(
        types: ["swap"], ability: .recreate, tool: "swapoff DEV; mkswap DEV",
        note: "recreated at the new size while not in use (swapoff first)")

    func steps(_ subject: ShrinkSubject, to bytes: UInt64) -> ShrinkSteps? {
        var options = subject.device.properties.uuid.map { " -U \(shellQuoted($0))" } ?? ""
        options += subject.device.properties.label.map { " -L \(shellQuoted($0))" } ?? ""
        return ShrinkSteps(after: [
            ResizeStep(
                "mkswap\(options) \(shellQuoted(subject.device.path))",
                "recreates the swap area at the partition's new size, keeping its UUID and label so fstab still finds it"
            )
        ])
    }
}
