/// Which files only a set of snapshots holds, asked of the backend of the set's
/// filesystem when it can tell (btrfs); any other says that it cannot.
extension SnapshotBackendRegistry: PinnedFileReading {
    public func pinnedFiles(of set: [UInt64], on filesystem: Filesystem, exact: ExactSizes?) throws -> PinnedFiles {
        guard let reader = try backend(for: filesystem.kind) as? any PinnedFileReading else {
            throw RuntimeError(
                "carve cannot tell which files only snapshots on \(filesystem.mountpoint) (\(filesystem.kind.rawValue)) hold"
            )
        }
        return try reader.pinnedFiles(of: set, on: filesystem, exact: exact)
    }
}
