import CarveCore

// PLACEHOLDER: replaced by the snapshot-listing work (libbtrfsutil, quota tree, managers).
public struct BtrfsSnapshotBackend: SnapshotBackend {
    public init() {}
    public func mountedFilesystems() throws -> [BtrfsFilesystem] { throw RuntimeError("not implemented yet") }
    public func filesystem(containing path: String) throws -> BtrfsFilesystem { throw RuntimeError("not implemented yet") }
    public func subvolumes(of filesystem: BtrfsFilesystem, sizes: SizeMode) throws -> SubvolumeListing {
        throw RuntimeError("not implemented yet")
    }
}
