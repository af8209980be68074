/// What carve knows of one filesystem, in one place, as GParted's `FileSystem` classes
/// and snapper's `Filesystem` keep it: which blkid types it is, whether and how it
/// shrinks (its row of the shrink table), and the commands that shrink it, in order.
/// How its minimum size is read on a machine is its Linux room's (CarveLinux/Filesystems/).
/// A new filesystem is its room plus one line in `FilesystemRooms.all`.
public protocol FilesystemRoom: Sendable {
    /// Its row of the shrink table: blkid TYPE values, ability, tool, note.
    var rule: ShrinkRule { get }
    /// The commands that shrink `subject` to `bytes` (a whole number of its blocks): those
    /// to run before the partition shrinks, and those after; nil when carve gives none.
    func steps(_ subject: ShrinkSubject, to bytes: UInt64) -> ShrinkSteps?
}

/// A filesystem's own part of the steps around the partition table's change.
public struct ShrinkSteps: Sendable, Hashable {
    /// Run before the partition shrinks: the filesystem shrinks first, never after.
    public var before: [ResizeStep]
    /// Run once the kernel knows the new table (swap: recreated at the new size).
    public var after: [ResizeStep]
    public init(before: [ResizeStep] = [], after: [ResizeStep] = []) { self.before = before; self.after = after }
}

extension FilesystemRoom {
    public func steps(_ subject: ShrinkSubject, to bytes: UInt64) -> ShrinkSteps? { nil }

    /// "4.0G (4294967296 bytes, 1048576 blocks of 4096 bytes)", as every step says a size.
    static func size(_ bytes: UInt64, of subject: ShrinkSubject) -> String {
        let block = ResizeSteps.blockSize(subject)
        let blocks =
            subject.figures.blockSize == nil
            ? "a whole number of \(block)-byte blocks" : "\(bytes / block) blocks of \(block) bytes"
        return "\(ByteSize.format(bytes)) (\(bytes) bytes, \(blocks))"
    }
}

/// Every filesystem room, in the order the man page's shrink table lists them.
public enum FilesystemRooms {
    public static let all: [any FilesystemRoom] = [
        BtrfsRoom(), ExtRoom(), XFSRoom(), VFATRoom(), NTFSRoom(), SwapRoom(), LUKSRoom(), LVMPhysicalVolumeRoom(),
        ZFSMemberRoom(),
    ]

    /// The room of a blkid TYPE; nil for a type carve has no room for.
    public static func room(for fsType: String?) -> (any FilesystemRoom)? {
        guard let fsType else { return nil }
        return all.first { $0.rule.types.contains(fsType) }
    }
}
