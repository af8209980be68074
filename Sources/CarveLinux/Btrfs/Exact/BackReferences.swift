import CBtrfsUtil
import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// The files that reference a data extent, asked of btrfs by the extent's back
/// references (BTRFS_IOC_LOGICAL_INO_V2 with IGNORE_OFFSET, as `btrfs inspect-internal
/// logical-resolve` asks): every (inode, subvolume) whose file extent items point into
/// it, through shared tree blocks too. Read-only (it attaches to a running transaction
/// only to see what it holds); needs CAP_SYS_ADMIN. One worker uses one instance.
final class BackReferences: @unchecked Sendable {
    /// Room for 2,730 references; an extent with more is asked again with the most
    /// the kernel returns.
    static let firstSize = 64 << 10
    static let largestSize = 16 << 20

    private let directory: FileDescriptor
    private var buffer: UnsafeMutableRawPointer
    private var capacity: Int

    init(_ directory: FileDescriptor) {
        self.directory = directory
        capacity = Self.firstSize
        buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: capacity)
    }

    deinit { buffer.deallocate() }

    /// Visits (inode, subvolume id) of every reference to the extent at `bytenr`; false
    /// when btrfs could not give them all (the extent is gone, or it has more than the
    /// largest buffer holds), so that the caller finds them another way.
    func forEach(of bytenr: UInt64, _ visit: (_ inode: UInt64, _ subvolume: UInt64) -> Void) -> Bool {
        while true {
            var arguments = btrfs_ioctl_logical_ino_args()
            arguments.logical = bytenr
            arguments.size = UInt64(capacity)
            arguments.flags = UInt64(BTRFS_LOGICAL_INO_ARGS_IGNORE_OFFSET)
            arguments.inodes = UInt64(UInt(bitPattern: buffer))
            guard carve_ioctl_ptr(directory.fd, carve_BTRFS_IOC_LOGICAL_INO_V2(), &arguments) == 0 else { return false }
            // struct btrfs_data_container: bytes_left, bytes_missing, elem_cnt, elem_missed, then
            // (inode, offset, root) triples of u64.
            let count = Int(buffer.load(fromByteOffset: 8, as: UInt32.self))
            let missed = buffer.load(fromByteOffset: 12, as: UInt32.self)
            if missed > 0 {
                guard capacity < Self.largestSize else { return false }
                grow()
                continue
            }
            var offset = 16
            for _ in 0..<(count / 3) {
                visit(
                    buffer.load(fromByteOffset: offset, as: UInt64.self),
                    buffer.load(fromByteOffset: offset + 16, as: UInt64.self))
                offset += 24
            }
            return true
        }
    }

    private func grow() {
        buffer.deallocate()
        capacity = Self.largestSize
        buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: capacity)
    }
}
