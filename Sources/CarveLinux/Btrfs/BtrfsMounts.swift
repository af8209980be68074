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
    /// Every mountpoint of subvolume `id` of `filesystem` in `table`, as `-o subvol=`
    /// or a bind mount of a path in it: the btrfs mounts that share the device number
    /// of the filesystem's own mounts and carry `subvolid=id`.
    static func mountpoints(ofSubvolume id: UInt64, on filesystem: Filesystem, in table: [MountEntry]) -> [String] {
        // Two passes over the table by position, nothing built but the answer: asked again
        // right before each deletion, the sets and filtered tables (and each entry copied
        // out, its strings retained) cost more than the call.
        var numbers: [DeviceNumber] = []
        for index in table.indices where table[index].fsType == "btrfs" && !numbers.contains(table[index].number) {
            if filesystem.mounts.contains(where: { $0.mountpoint == table[index].mountpoint }) {
                numbers.append(table[index].number)
            }
        }
        var found: [String] = []
        for index in table.indices where table[index].fsType == "btrfs" && numbers.contains(table[index].number) {
            if table[index].superOption("subvolid").flatMap(UInt64.init) == id { found.append(table[index].mountpoint) }
        }
        return found
    }

    /// One volume's `mountsInside`, right before its deletion: a prefix test per mount,
    /// with nothing built (a run deleting a thousand asks a thousand times).
    /// Given the volume's mounted path and its own mountpoints, as read right then.
    static func mounts(below mountedPath: String?, _ mountpoints: [String], in table: [MountEntry]) -> [String] {
        var found: [String] = []
        for reach in [mountedPath].compactMap({ $0 }) + mountpoints where reach != "/" {
            for index in table.indices where table[index].mountpoint.utf8.count > reach.utf8.count + 1 {
                let bytes = table[index].mountpoint.utf8
                if bytes.starts(with: reach.utf8), bytes.dropFirst(reach.utf8.count).first == UInt8(ascii: "/"),
                    !found.contains(table[index].mountpoint)
                {
                    found.append(table[index].mountpoint)
                }
            }
        }
        return found
    }

    /// Fills each volume's `mountsInside`: the mountpoints in `table` that lie below
    /// its mounted path or below a mount of its own, in the order `mounts(below:_:in:)`
    /// names them. The directories above each mount are gathered once (the mounts times
    /// their depth), then each volume's paths are looked up there: one lookup per path.
    /// A volume mounted at `/` holds every mount; the rule for `/` covers it.
    static func markMountsInside(_ volumes: inout [Volume], table: [MountEntry]) {
        // The directories that hold a mount somewhere below them, with those mounts.
        var below: [String: [String]] = [:]
        for mountpoint in table.map(\.mountpoint) {
            var parent = Substring(mountpoint)
            while let slash = parent.lastIndex(of: "/"), slash != parent.startIndex {
                parent = parent[..<slash]
                below[String(parent), default: []].append(mountpoint)
            }
        }
        // A path of a length no such directory has is not hashed to be looked up: most
        // snapshots hold no mount, and hashing each one's path cost more than the rest.
        var lengths = [Bool](repeating: false, count: (below.keys.map(\.utf8.count).max() ?? 0) + 1)
        for directory in below.keys { lengths[directory.utf8.count] = true }
        // Fields read in place, not each volume copied whole.
        for index in volumes.indices {
            var found: [String] = []
            func add(_ reach: String) {
                guard reach.utf8.count < lengths.count, lengths[reach.utf8.count], reach != "/",
                    let mounts = below[reach]
                else { return }
                for mount in mounts where !found.contains(mount) { found.append(mount) }
            }
            if let path = volumes[index].mountedPath { add(path) }
            for path in volumes[index].mountpoints { add(path) }
            // An empty list is left as the volume was made with it.
            if !found.isEmpty || !volumes[index].mountsInside.isEmpty { volumes[index].mountsInside = found }
        }
    }
}
