import CarveCore

extension ExtentMap {
    /// One reference at a time, as the tests build their maps: `addReferences` with one.
    public mutating func addReference(subvolume: UInt64, diskBytenr: UInt64, diskBytes: UInt64) {
        addReferences(subvolume: subvolume, [ExtentKey(diskBytenr: diskBytenr, diskBytes: diskBytes)])
    }
}
