/// LUKS: its container and the filesystem inside would both shrink; not supported yet.
struct LUKSRoom: FilesystemRoom {
    let rule = ShrinkRule(
        types: ["crypto_LUKS"], ability: .unknown, tool: nil, note: "LUKS: not supported yet, cannot tell")
}
