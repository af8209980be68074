/// xfs: grows, never shrinks.
struct XFSRoom: FilesystemRoom {
    let rule = ShrinkRule(
        types: ["xfs"], ability: .cannotShrink, tool: nil,
        note: "xfs cannot be shrunk; copy the data off and recreate it")
}
