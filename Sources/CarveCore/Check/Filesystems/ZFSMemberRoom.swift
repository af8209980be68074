/// A device of a ZFS pool (`zfs_member`): its row of the shrink table; what check adds of
/// the pool and its remedies is `ZFSMemberCheck`'s.
struct ZFSMemberRoom: FilesystemRoom {
    var rule: ShrinkRule { ZFSMemberCheck.rule }
}
