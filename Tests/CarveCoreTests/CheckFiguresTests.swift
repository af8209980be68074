import CarveCore
import CarveTestSupport
import Testing

@Suite struct ResizeToolOutputTests {
    @Test func resize2fsMinimum() throws {
        let text = "resize2fs 1.47.0 (5-Feb-2023)\nEstimated minimum size of the filesystem: 48213\n"
        #expect(try ResizeToolOutput.resize2fsMinimumBlocks(text) == 48213)
    }

    @Test(arguments: [
        "", "resize2fs 1.47.0\n", "Estimated minimum size of the filesystem: lots\n",
        "Estimated minimum size of the filesystem:\n",
    ])
    func resize2fsMalformed(_ text: String) {
        #expect(throws: ParseError.self) { try ResizeToolOutput.resize2fsMinimumBlocks(text) }
    }

    @Test func dumpe2fsFields() throws {
        let text =
            "Filesystem volume name:   <none>\nBlock count:              256000\nBlock size:               4096\nFree blocks:              1200\n"
        #expect(try ResizeToolOutput.dumpe2fsField("Block size", in: text) == 4096)
        #expect(try ResizeToolOutput.dumpe2fsField("Block count", in: text) == 256_000)
        #expect(throws: ParseError.self) { try ResizeToolOutput.dumpe2fsField("Inode count", in: text) }
        #expect(throws: ParseError.self) {
            try ResizeToolOutput.dumpe2fsField("Block size", in: "Block size:  four\n")
        }
    }

    @Test func ntfsresizeMinimum() throws {
        let text = "ntfsresize v2022.10.3\nYou might resize at 123456789 bytes or 124 MB (freeing 900 MB).\n"
        #expect(try ResizeToolOutput.ntfsresizeMinimumBytes(text) == 123_456_789)
        #expect(throws: ParseError.self) {
            try ResizeToolOutput.ntfsresizeMinimumBytes("You might resize at many bytes\n")
        }
        #expect(throws: ParseError.self) { try ResizeToolOutput.ntfsresizeMinimumBytes("") }
    }
}

@Suite struct ShrinkRuleTests {
    @Test func theTableSaysWhatEachTypeAllows() {
        #expect(ShrinkRule.rule(for: "btrfs").ability == .onlineOnly)
        for type in ["ext2", "ext3", "ext4", "vfat", "ntfs"] {
            #expect(ShrinkRule.rule(for: type).ability == .offlineOnly)
        }
        #expect(ShrinkRule.rule(for: "xfs").ability == .cannotShrink)
        #expect(ShrinkRule.rule(for: "zfs_member").ability == .cannotShrink, "a ZFS vdev never shrinks")
        #expect(ShrinkRule.rule(for: "swap").ability == .recreate)
        for type in ["crypto_LUKS", "LVM2_member", nil] {
            #expect(ShrinkRule.rule(for: type).ability == .unknown)
        }
    }

    @Test func everyTypeIsListedOnce() {
        let types = ShrinkRule.table.flatMap(\.types)
        #expect(Set(types).count == types.count)
    }
}

@Suite struct BtrfsAllocationTests {
    @Test func nothingBeyondTheTargetFitsAtTheEndOfTheLastChunk() {
        let allocation = BtrfsAllocation.laidOut(deviceSize: 4 * .gib, dataUsed: [500 * .mib])
        #expect(allocation.minimum == 1041 * .mib)
        #expect(allocation.fits(size: 1041 * .mib))
        #expect(!allocation.fits(size: 1040 * .mib))
    }

    @Test func movingExtentsGoIntoFreeRunsOfStayingChunks() {
        // Data chunks at 529-1041, 1641-2153 and 2153-2665 MiB, one 100 MiB extent each:
        // once the first chunk stays, its 412 MiB free run takes both moving extents.
        let allocation = BtrfsAllocation.laidOut(
            deviceSize: 4 * .gib, dataUsed: [100 * .mib, 100 * .mib, 100 * .mib], holeAfterFirst: 600 * .mib)
        // Something moves, so the headroom above the simulated floor applies.
        #expect(allocation.minimum == 1041 * .mib + BtrfsAllocation.shrinkHeadroom)
        #expect(!allocation.fits(size: 1040 * .mib + BtrfsAllocation.shrinkHeadroom))
        #expect(allocation.fits(size: 3 * .gib))
    }

    @Test func anExtentIsNeverSplitToFitSmallerRuns() {
        // Two 400 MiB extents leave 112 MiB runs: the third chunk's 200 MiB extent cannot
        // move into them, and there is no hole for a new chunk.
        let full = BtrfsAllocation.laidOut(deviceSize: 4 * .gib, dataUsed: [400 * .mib, 400 * .mib, 200 * .mib])
        #expect(full.minimum == 2065 * .mib)
        // With a 600 MiB hole below, a new chunk cut from it takes the extent; not two of them.
        let holed = BtrfsAllocation.laidOut(
            deviceSize: 4 * .gib, dataUsed: [400 * .mib, 400 * .mib, 200 * .mib], holeAfterFirst: 600 * .mib)
        #expect(holed.fits(size: 2153 * .mib + BtrfsAllocation.shrinkHeadroom))
        #expect(!holed.fits(size: 1640 * .mib))
    }

    @Test func movingMetadataNeedsNewChunksFromTheHoles() {
        // Everything but the first data chunk lies beyond 1041 MiB when metadata sits last.
        let data = BtrfsAllocation.BlockGroup(start: 1 << 30, length: 512 * .mib, used: 100 * .mib, kind: .data)
        let metadata = BtrfsAllocation.BlockGroup(start: 2 << 30, length: 256 * .mib, used: 40 * .mib, kind: .metadata)
        let allocation = BtrfsAllocation(
            deviceSize: 2 * .gib,
            extents: [
                .init(start: .mib, length: 512 * .mib, chunk: 1 << 30),
                .init(start: 1024 * .mib, length: 256 * .mib, chunk: 2 << 30),
                .init(start: 1280 * .mib, length: 256 * .mib, chunk: 2 << 30),
            ], blockGroups: [data, metadata])
        // 80 MiB of metadata (two copies) in 16 MiB steps, plus the 64 MiB margin, from the hole at 513 MiB;
        // then the headroom above that floor.
        #expect(allocation.minimum == (513 + 80) * .mib + BtrfsAllocation.shrinkHeadroom)
    }

    @Test func fitsGrowsWithTheSize() {
        let allocation = BtrfsAllocation.laidOut(
            deviceSize: 4 * .gib, dataUsed: [300 * .mib, 20 * .mib, 500 * .mib], holeAfterFirst: 200 * .mib)
        var fitted = false
        for mebibytes in stride(from: UInt64(200), through: 4096, by: 8) {
            let fits = allocation.fits(size: mebibytes * .mib)
            #expect(!(fitted && !fits), "fits at a smaller size but not at \(mebibytes) MiB")
            fitted = fitted || fits
        }
        #expect(allocation.fits(size: allocation.minimum) && !allocation.fits(size: allocation.minimum - .mib))
    }

    @Test func theKernelRefusesDevicesBelow256MiB() {
        let allocation = BtrfsAllocation(deviceSize: 300 * .mib, extents: [], blockGroups: [])
        #expect(!allocation.fits(size: 255 * .mib))
        #expect(allocation.minimum == 256 * .mib)
        #expect(allocation.minimumAfterBalance() == 256 * .mib)
    }

    @Test func afterABalanceDataIsPackedIntoWholeChunks() {
        let allocation = BtrfsAllocation.laidOut(deviceSize: 4 * .gib, dataUsed: [100 * .mib, 100 * .mib, 100 * .mib])
        // One 512 MiB data chunk, 512 MiB DUP metadata, 16 MiB DUP system, 1 MiB, 64 + 4 MiB margin.
        #expect(allocation.minimumAfterBalance() == 1109 * .mib)
        #expect(allocation.minimumAfterBalance(freeingData: 290 * .mib) == 1109 * .mib)
        let full = BtrfsAllocation.laidOut(deviceSize: 4 * .gib, dataUsed: [512 * .mib, 512 * .mib, 100 * .mib])
        #expect(full.minimumAfterBalance() == (1109 + 1024) * .mib)
        #expect(full.minimumAfterBalance(freeingData: 200 * .mib) == (1109 + 512) * .mib)
    }
}
