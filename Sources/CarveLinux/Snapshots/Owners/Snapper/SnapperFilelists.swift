import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// snapper's comparison caches: `snapper status A..B` leaves `filelist-A.txt` (or
/// `.gz`) in B's directory. When snapper deletes snapshot N it removes the filelists
/// of N from every other snapshot's directory, so that a number given again (snapper
/// before 0.13.1, or UNIQUE_NUMBERS="no") never meets a stale cache; carve does the
/// same. Each `.snapshots` directory is read once a run, not once a snapshot.
final class SnapperFilelists: @unchecked Sendable {
    private let lock = Lock()
    /// `.snapshots` path → snapshot number → the numbered directories holding its filelists.
    private var index: [String: [UInt64: [String]]] = [:]

    /// Removes the filelists of snapshot `number` from the other directories of `snapshots`.
    func removeCaches(of number: UInt64, in snapshots: String) throws {
        lock.lock()
        defer { lock.unlock() }
        if index[snapshots] == nil { index[snapshots] = try Self.scan(snapshots) }
        guard let holders = index[snapshots]?.removeValue(forKey: number) else { return }
        let parent = try DirectoryAccess.open(snapshots, "cannot read \(snapshots)")
        for holder in holders {
            // Gone when it was deleted earlier in this run, its filelists with it.
            guard
                let directory = try DirectoryAccess.openIfPresent(
                    holder, at: parent, "cannot read \(snapshots)/\(holder)")
            else { continue }
            for name in ["filelist-\(number).txt", "filelist-\(number).txt.gz"] {
                guard unlinkat(directory.fd, name, 0) == 0 || errno == ENOENT else {
                    throw SystemCallError(
                        "cannot remove snapper's \(snapshots)/\(holder)/\(name)", call: "unlinkat", errno: errno)
                }
            }
        }
    }

    /// Every `N/filelist-M.txt[.gz]` below `snapshots`, by M.
    private static func scan(_ snapshots: String) throws -> [UInt64: [String]] {
        let parent = try DirectoryAccess.open(snapshots, "cannot read \(snapshots)")
        var found: [UInt64: [String]] = [:]
        for holder in try DirectoryAccess.entryNames(parent, snapshots).map(DirectoryAccess.text)
        where ManagerMetadataRemoval.snapperNumber(holder) != nil {
            guard let directory = try? DirectoryAccess.open(holder, at: parent, "cannot read \(snapshots)/\(holder)")
            else { continue }
            let path = snapshots + "/" + holder
            for name in (try? DirectoryAccess.entryNames(consuming: directory, path)) ?? [] {
                guard let number = cachedNumber(DirectoryAccess.text(name)) else { continue }
                found[number, default: []].append(holder)
            }
        }
        return found
    }

    /// M of `filelist-M.txt` or `filelist-M.txt.gz`.
    static func cachedNumber(_ name: String) -> UInt64? {
        guard name.hasPrefix("filelist-") else { return nil }
        var rest = name.dropFirst("filelist-".count)
        if rest.hasSuffix(".gz") { rest = rest.dropLast(3) }
        guard rest.hasSuffix(".txt") else { return nil }
        return ManagerMetadataRemoval.snapperNumber(rest.dropLast(4))
    }
}
