/// How a filesystem type can be made smaller. Each filesystem's room declares its row
/// (`FilesystemRoom.rule`); the planner and the man page (carve-check(8) prints
/// `ShrinkRule.table` in words) read the same rows.
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

    /// The table, in the order the man page lists it: each filesystem room's row.
    public static var table: [ShrinkRule] { FilesystemRooms.all.map(\.rule) }

    /// The rule for a blkid TYPE; unknown types and no filesystem at all get the "cannot tell" rule.
    public static func rule(for fsType: String?) -> ShrinkRule {
        if let room = FilesystemRooms.room(for: fsType) { return room.rule }
        return ShrinkRule(
            types: fsType.map { [$0] } ?? [], ability: .unknown, tool: nil,
            note: fsType.map { "\($0): not supported yet, cannot tell" } ?? "no filesystem found: cannot tell"
        )
    }
}
