/// How a filesystem type can be made smaller. One table for the planner and the
/// man page (carve-check(8) prints `ShrinkRule.table` in words).
public enum ShrinkAbility: String, Sendable, Hashable, Codable {
    /// Shrinks while mounted, and only then (btrfs).
    case onlineOnly = "online only"
    /// Shrinks while unmounted, and only then (ext2/3/4, vfat, ntfs).
    case offlineOnly = "offline only"
    /// Recreated at the new size when not in use: nothing inside to keep (swap).
    case recreate = "recreate"
    /// The filesystem cannot be made smaller at all (xfs).
    case cannotShrink = "cannot shrink"
    /// carve does not know yet (LUKS, LVM physical volumes, unknown types): never a guessed yes.
    case unknown = "not supported yet, cannot tell"
}

/// One row of the shrink table.
public struct ShrinkRule: Sendable, Hashable {
    /// blkid's TYPE values this row covers.
    public var types: [String]
    public var ability: ShrinkAbility
    /// The command that does the shrink, with FS, SIZE and DEV placeholders; nil when none.
    public var tool: String?
    /// What the man page says about it.
    public var note: String

    /// The table, in the order the man page lists it.
    public static let table: [ShrinkRule] = [
        ShrinkRule(
            types: ["btrfs"], ability: .onlineOnly, tool: "btrfs filesystem resize SIZE MOUNTPOINT",
            note: "shrinks only while mounted; chunks beyond the new end are relocated"
        ),
        ShrinkRule(
            types: ["ext2", "ext3", "ext4"], ability: .offlineOnly, tool: "resize2fs DEV SIZE",
            note: "shrinks only while unmounted (resize2fs grows online but shrinks offline)"
        ),
        ShrinkRule(
            types: ["xfs"], ability: .cannotShrink, tool: nil,
            note: "xfs cannot be shrunk; copy the data off and recreate it"),
        ShrinkRule(
            types: ["vfat"], ability: .offlineOnly, tool: "fatresize -s SIZE DEV",
            note: "shrinks while unmounted with fatresize"
        ),
        ShrinkRule(
            types: ["ntfs"], ability: .offlineOnly, tool: "ntfsresize --size SIZE DEV",
            note: "shrinks while unmounted with ntfsresize"
        ),
        ShrinkRule(
            types: ["swap"], ability: .recreate, tool: "swapoff DEV; mkswap DEV",
            note: "recreated at the new size while not in use (swapoff first)"
        ),
        ShrinkRule(types: ["crypto_LUKS"], ability: .unknown, tool: nil, note: "LUKS: not supported yet, cannot tell"),
        ShrinkRule(
            types: ["LVM2_member"], ability: .unknown, tool: nil,
            note: "LVM physical volume: not supported yet, cannot tell"),
        ZFSMemberCheck.rule,
    ]

    /// The rule for a blkid TYPE; unknown types and no filesystem at all get the "cannot tell" rule.
    public static func rule(for fsType: String?) -> ShrinkRule {
        if let fsType, let rule = table.first(where: { $0.types.contains(fsType) }) { return rule }
        return ShrinkRule(
            types: fsType.map { [$0] } ?? [], ability: .unknown, tool: nil,
            note: fsType.map { "\($0): not supported yet, cannot tell" } ?? "no filesystem found: cannot tell"
        )
    }
}
