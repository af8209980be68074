/// The subvolumes of one filesystem, and what is known of their completeness and sizes.
public struct VolumeListing: Sendable, Hashable {
    public var filesystem: Filesystem
    public var subvolumes: [Volume]
    /// How sizes were found; `.none` when they are unknown.
    public var sizes: SizeMode
    /// Why sizes are unknown, when they were asked for and are not known.
    public var sizeNote: String?
    /// Warnings to print on stderr (unreadable metadata, skipped entries).
    public var warnings: [String]
    /// With `--sizes exact`: the extent map, for what deleting any set frees.
    public var exact: ExactSizes? = nil
    /// Set by a backend whose volumes are plain (as the filesystem describes them): what
    /// owners need to recognise theirs. `OwnerClassification` uses it and clears it; nil
    /// once classified, or when owners have nothing to look at (a backup chain's relatives).
    public var ownerFacts: OwnerFacts? = nil
    public init(
        filesystem: Filesystem, subvolumes: [Volume], sizes: SizeMode,
        sizeNote: String? = nil, warnings: [String] = []
    ) {
        self.filesystem = filesystem; self.subvolumes = subvolumes; self.sizes = sizes
        self.sizeNote = sizeNote; self.warnings = warnings
    }
}

extension VolumeListing {
    /// A filesystem of a listing of every mounted one that could not be listed: no
    /// volumes, and `warning` saying why, so the others are still listed.
    public static func leftOut(_ filesystem: Filesystem, warning: String) -> VolumeListing {
        VolumeListing(filesystem: filesystem, subvolumes: [], sizes: .none, warnings: [warning])
    }
}
