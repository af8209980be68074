import CBtrfsUtil
import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// The mounted btrfs filesystems, from the mount table: mounts of one filesystem
/// share its device number, and BTRFS_IOC_FS_INFO on one of them gives the fsid.
enum BtrfsMounts {
    static let superMagic: Int = 0x9123_683E // BTRFS_SUPER_MAGIC

    static func filesystems(from entries: [MountEntry]) -> [Filesystem] {
        var order: [DeviceNumber] = []
        var groups: [DeviceNumber: [MountEntry]] = [:]
        for entry in entries where entry.fsType == "btrfs" {
            if groups[entry.number] == nil { order.append(entry.number) }
            groups[entry.number, default: []].append(entry)
        }
        return order.compactMap { number -> Filesystem? in
            let mounts = groups[number] ?? []
            // A mount that cannot be opened (hidden below another mount, gone) is skipped for the fsid.
            guard let uuid = mounts.lazy.compactMap({ try? fsid(of: $0.mountpoint) }).first else { return nil }
            let devices = mounts.map(\.source).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            return Filesystem(uuid: uuid, devices: devices, mounts: mounts.map(btrfsMount))
        }
    }

    static func btrfsMount(_ entry: MountEntry) -> FilesystemMount {
        FilesystemMount(
            mountpoint: entry.mountpoint, subvolumePath: entry.root,
            subvolumeID: entry.superOption("subvolid").flatMap { UInt64($0) } ?? 5, readOnly: entry.isReadOnly
        )
    }

    /// A filesystem UUID's four big-endian 32-bit words, as btrfs_statfs reads the fsid;
    /// nil unless it is 32 hex digits (dashes anywhere). Read from the bytes in place, as
    /// two 64-bit halves: `locate` asks it for each named path, and a filter and four
    /// Strings made each of a thousand names cost more than the statfs calls (a loop
    /// through the string's view, a word picked per digit, 1,900 instructions a call).
    static func fsidWords(_ uuid: String) -> (UInt32, UInt32, UInt32, UInt32)? {
        var uuid = uuid
        return uuid.withUTF8 { bytes in
            var halves: (high: UInt64, low: UInt64) = (0, 0)
            var digits = 0
            for byte in bytes where byte != UInt8(ascii: "-") {
                guard digits < 32, let value = hexValue(byte) else { return nil }
                if digits < 16 {
                    halves.high = halves.high << 4 | UInt64(value)
                } else {
                    halves.low = halves.low << 4 | UInt64(value)
                }
                digits += 1
            }
            guard digits == 32 else { return nil }
            return (
                UInt32(truncatingIfNeeded: halves.high >> 32), UInt32(truncatingIfNeeded: halves.high),
                UInt32(truncatingIfNeeded: halves.low >> 32), UInt32(truncatingIfNeeded: halves.low)
            )
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    static func fsid(of path: String) throws -> String {
        let directory = try FileDescriptor(directory: path)
        return uuidString(try BtrfsQuery.filesystemInfo(directory.fd, path: path).fsid) ?? ""
    }

    /// The filesystem type name of `path`'s mount (longest mountpoint prefix), for error messages.
    static func fsType(of path: String, in entries: [MountEntry]) -> String? {
        entries.filter { $0.mountpoint == "/" || path == $0.mountpoint || path.hasPrefix($0.mountpoint + "/") }
            .max { $0.mountpoint.count < $1.mountpoint.count }?.fsType
    }

    /// True when statfs says `path` is on btrfs; a `UsageError` when it does not exist.
    static func isBtrfs(_ path: String) throws -> Bool {
        var info = statfs()
        guard ByteText.withCString(path, { statfs($0, &info) }) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw UsageError("\(path): no such file or directory") }
            throw SystemCallError("cannot look at \(path)", call: "statfs", errno: errno)
        }
        return Int(info.f_type) == superMagic
    }
}

extension BtrfsMounts {
    /// Every mountpoint of each subvolume of `filesystem` in `table`, as `-o subvol=` or
    /// a bind mount of a path in it: the btrfs mounts that share the device number of
    /// the filesystem's own mounts, by the `subvolid` they carry, in table order.
    static func mountpointsBySubvolume(on filesystem: Filesystem, in table: [MountEntry]) -> [UInt64: [String]] {
        var numbers: [DeviceNumber] = []
        for index in table.indices where table[index].fsType == "btrfs" && !numbers.contains(table[index].number) {
            if filesystem.mounts.contains(where: { $0.mountpoint == table[index].mountpoint }) {
                numbers.append(table[index].number)
            }
        }
        var found: [UInt64: [String]] = [:]
        for index in table.indices where table[index].fsType == "btrfs" && numbers.contains(table[index].number) {
            if let id = table[index].superOption("subvolid").flatMap(UInt64.init) {
                found[id, default: []].append(table[index].mountpoint)
            }
        }
        return found
    }

    /// Fills each volume's `mountsInside`: the mountpoints in `table` that lie below
    /// its mounted path or below a mount of its own (`MountsBelow`). A volume mounted
    /// at `/` holds every mount; the rule for `/` covers it.
    static func markMountsInside(_ volumes: inout [Volume], table: [MountEntry]) {
        let below = MountsBelow(table)
        // Fields read in place, not each volume copied whole.
        for index in volumes.indices {
            let found = below.inside(volumes[index].mountedPath, volumes[index].mountpoints)
            // An empty list is left as the volume was made with it.
            if !found.isEmpty || !volumes[index].mountsInside.isEmpty { volumes[index].mountsInside = found }
        }
    }
}
