/// Where a filesystem's subvolumes can be reached through its current mounts.
///
/// A mount shows the part of the filesystem below its root (`-o subvol=@home`
/// gives root "/@home"), so a path from the top level is reachable through every
/// mount whose root is a prefix of it. The most specific mount wins: `/home/x`
/// reads better than `/mnt/top/@home/x`.
extension Filesystem {
    /// The absolute path of `topLevelPath` ("@home/.snapshots/1/snapshot") through a mount, or nil.
    /// With `besideItsOwnMounts`, a mount of that very path is taken only when no other
    /// mount reaches it: a snapshot mounted at /srv/old is named by its place in the
    /// filesystem (its own mounts are its MOUNTPOINTS), so the user can tell which it is.
    public func mountedPath(ofTopLevelPath topLevelPath: String, besideItsOwnMounts: Bool = false) -> String? {
        MountReach(self).mountedPath(ofTopLevelPath: topLevelPath, besideItsOwnMounts: besideItsOwnMounts)
    }

    /// The path from the top level of an absolute path inside one of the mounts, or nil.
    /// Symlinks are not followed: this is string work on mountpoints.
    public func topLevelPath(ofMountedPath absolutePath: String) -> String? {
        let path =
            absolutePath.count > 1 && absolutePath.hasSuffix("/") ? String(absolutePath.dropLast()) : absolutePath
        let candidates = mounts.filter { mount in
            mount.mountpoint == "/" || path == mount.mountpoint || path.hasPrefix(mount.mountpoint + "/")
        }
        guard let mount = candidates.max(by: { $0.mountpoint.count < $1.mountpoint.count }) else { return nil }
        let rest = trimmingSlashes(String(path.dropFirst(mount.mountpoint == "/" ? 0 : mount.mountpoint.count)))
        let root = trimmingSlashes(mount.subvolumePath)
        return root.isEmpty ? rest : rest.isEmpty ? root : root + "/" + rest
    }

    /// Every mountpoint where this subvolume itself is mounted (not a directory inside it).
    public func mountpoints(ofSubvolume id: UInt64, path: String) -> [String] {
        MountReach(self).mountpoints(ofSubvolume: id, path: path)
    }
}

/// A filesystem's mounts, each root trimmed once, answering `Filesystem.mountedPath`
/// and `Filesystem.mountpoints` for every subvolume of a listing: trimming each mount's
/// root again for each of ten thousand subvolumes cost more than reading them.
public struct MountReach: Sendable {
    private let mounts: [(mountpoint: String, root: String, subvolumeID: UInt64)]

    public init(_ filesystem: Filesystem) {
        mounts = filesystem.mounts.map { ($0.mountpoint, trimmingSlashes($0.subvolumePath), $0.subvolumeID) }
    }

    /// See `Filesystem.mountedPath(ofTopLevelPath:besideItsOwnMounts:)`.
    public func mountedPath(ofTopLevelPath topLevelPath: String, besideItsOwnMounts: Bool = false) -> String? {
        let path = trimmingSlashes(topLevelPath)
        // Positions and lengths only while looking: holding the winner's strings (and
        // copying each mount out of the array) retained and released them per subvolume.
        var best: (position: Int, rootLength: Int)?
        var own: Int?
        mounts.withUnsafeBufferPointer { mounts in
            for position in mounts.indices {
                let rootLength = mounts[position].root.utf8.count
                if rootLength > 0 && path == mounts[position].root {
                    if besideItsOwnMounts {
                        own = own ?? position
                        continue
                    }
                } else if rootLength > 0 && !isInside(path, mounts[position].root) {
                    continue
                }
                guard best.map({ rootLength > $0.rootLength }) ?? true else { continue }
                best = (position, rootLength)
            }
        }
        guard let best else { return own.map { mounts[$0].mountpoint } }
        // Joined once, for the mount that won.
        let rest =
            best.rootLength == 0
            ? Substring(path) : Substring(path.utf8.dropFirst(min(best.rootLength + 1, path.utf8.count)))
        return join(mounts[best.position].mountpoint, rest)
    }

    /// See `Filesystem.mountpoints(ofSubvolume:path:)`.
    public func mountpoints(ofSubvolume id: UInt64, path: String) -> [String] {
        guard mounts.contains(where: { $0.subvolumeID == id }) else { return [] }
        let trimmed = trimmingSlashes(path)
        return mounts.filter { $0.subvolumeID == id && $0.root == trimmed }.map(\.mountpoint)
    }
}

/// True when `path` lies below `root` ("a/b" below "a", not "ab" below "a").
private func isInside(_ path: String, _ root: String) -> Bool {
    let bytes = path.utf8
    guard bytes.count > root.utf8.count, bytes.starts(with: root.utf8) else { return false }
    return bytes[bytes.index(bytes.startIndex, offsetBy: root.utf8.count)] == UInt8(ascii: "/")
}

private func trimmingSlashes(_ path: String) -> String {
    // Paths from the kernel seldom carry slashes at either end: keep those as they are.
    let bytes = path.utf8
    let slash = UInt8(ascii: "/")
    guard bytes.first == slash || bytes.last == slash else { return path }
    guard let first = bytes.firstIndex(where: { $0 != slash }), let last = bytes.lastIndex(where: { $0 != slash })
    else { return "" }
    return String(Substring(bytes[first...last]))
}

private func join(_ mountpoint: String, _ rest: Substring) -> String {
    if rest.isEmpty { return mountpoint }
    if mountpoint == "/" { return "/" + rest }
    // Copied into one new string: appending piece by piece cost more than the listing's read.
    var (head, tail) = (mountpoint, rest)
    return head.withUTF8 { head in
        tail.withUTF8 { tail in
            String(unsafeUninitializedCapacity: head.count + 1 + tail.count) { text in
                _ = text.initialize(from: head)
                text[head.count] = UInt8(ascii: "/")
                _ = UnsafeMutableBufferPointer(rebasing: text[(head.count + 1)...]).initialize(from: tail)
                return head.count + 1 + tail.count
            }
        }
    }
}
