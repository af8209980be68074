import CarveCore
import Testing

/// Multi-device btrfs: a member's shrink and its removal, on allocations built by hand.
struct BtrfsMembersTests {
    static let mib: UInt64 = 1 << 20

    /// raid1 over `devices` devices of 1000 MiB: `chunks` data chunks of 100 MiB, full,
    /// chunk i on this device (devid 1) and on device 2 + i % (devices - 1).
    func raid1(devices: Int, chunks: Int) -> BtrfsAllocation {
        let length = 100 * Self.mib
        var groups: [BtrfsAllocation.BlockGroup] = [], mine: [BtrfsAllocation.DeviceExtent] = []
        var others: [UInt64: [BtrfsAllocation.DeviceExtent]] = [:]
        for i in 0..<chunks {
            let logical = UInt64(i) * length + (1 << 30)
            groups.append(.init(start: logical, length: length, used: length, kind: .data, profile: .raid1))
            mine.append(.init(start: Self.mib + UInt64(i) * length, length: length, chunk: logical))
            let other = UInt64(2 + i % (devices - 1))
            others[other, default: []].append(
                .init(start: Self.mib + UInt64(others[other]?.count ?? 0) * length, length: length, chunk: logical))
        }
        let members = (2...devices).map { devid in
            BtrfsAllocation.Member(
                devid: UInt64(devid), size: 1000 * Self.mib,
                allocated: UInt64(others[UInt64(devid)]?.count ?? 0) * length)
        }
        return BtrfsAllocation(
            deviceSize: 1000 * Self.mib, extents: mine, blockGroups: groups,
            devid: 1, otherMembers: members, memberExtents: others)
    }

    @Test func profilesSayHowManyCopiesAChunkKeeps() {
        #expect(BtrfsAllocation.Profile.raid1.mirrors == 2)
        #expect(BtrfsAllocation.Profile.raid1c3.mirrors == 3)
        #expect(BtrfsAllocation.Profile.dup.mirrors == 1)
        #expect(BtrfsAllocation.Profile.raid5.mirrors == nil)
    }

    @Test func twoDevicesOfRaid1CannotLoseOne() {
        let blockers = raid1(devices: 2, chunks: 3).removalBlockers(device: "/dev/sdb")
        #expect(blockers.map(\.kind) == [.cannotRemove])
        #expect(blockers.first?.detail == "raid1 needs at least 2 devices, and removing /dev/sdb leaves 1")
    }

    @Test func threeDevicesTakeACopyEachWhereTheOtherIsNot() {
        #expect(raid1(devices: 3, chunks: 6).removalBlockers(device: "/dev/sdc").isEmpty)
    }

    /// Nine chunks here, their other copies split over two devices of 1000 MiB: each
    /// device must take the copies of the chunks the other holds, 500 and 400 MiB, on
    /// top of its own 400 and 500; 900 MiB of 1000 fits, with the margin.
    @Test func removalCountsWhereTheOtherCopiesAre() {
        #expect(raid1(devices: 3, chunks: 9).removalBlockers(device: "/dev/sdc").isEmpty)
        let blockers = raid1(devices: 3, chunks: 10).removalBlockers(device: "/dev/sdc")
        #expect(blockers.map(\.kind) == [.noRoom])
    }

    @Test func theOnlyDeviceCannotBeRemoved() {
        let single = BtrfsAllocation(deviceSize: 1000 * Self.mib, extents: [], blockGroups: [])
        #expect(
            single.removalBlockers(device: "/dev/sda").first?.detail
                == "/dev/sda is the only device of its btrfs filesystem")
    }

    @Test func aStripedProfileIsNeverAGuess() {
        var allocation = raid1(devices: 3, chunks: 2)
        allocation.blockGroups[0].profile = .raid5
        #expect(allocation.stripedProfile == .raid5)
        #expect(allocation.removalBlockers(device: "/dev/sdc").map(\.kind) == [.cannotTell])
    }

    /// A new chunk of a mirrored profile takes a copy on another device too; data that
    /// moves into room left in staying chunks needs none.
    @Test func aShrinkNeedsRoomForANewChunksCopyOnTheOthers() {
        var full = raid1(devices: 2, chunks: 5)
        // The chunks at the end of the device, 400 MiB free below them.
        for index in full.extents.indices { full.extents[index].start += 400 * Self.mib }
        #expect(full.fits(size: 700 * Self.mib))
        full.otherMembers[0].allocated = 990 * Self.mib
        #expect(!full.fits(size: 700 * Self.mib))
        #expect(full.fits(size: 910 * Self.mib)) // nothing moves
        var halfEmpty = full
        for index in halfEmpty.blockGroups.indices { halfEmpty.blockGroups[index].used /= 2 }
        #expect(halfEmpty.fits(size: 810 * Self.mib)) // the last chunk's data goes into the others' room
    }

    @Test func theNotesNameTheDeviceAndItsCommand() {
        let notes = raid1(devices: 2, chunks: 2).memberNotes(target: 600 * Self.mib, mountpoint: "/mnt/pool")
        #expect(notes[0] == "btrfs over 2 devices (raid1); this is device 1, the others are 2 (800M unallocated)")
        #expect(notes[1] == "shrink this device with `btrfs filesystem resize 1:\(600 * Self.mib) /mnt/pool`")
        #expect(notes[2].hasPrefix("raid1 keeps a copy of every chunk on each of the 2 devices"))
        #expect(
            BtrfsAllocation(deviceSize: 1, extents: [], blockGroups: []).memberNotes(target: 1, mountpoint: "/").isEmpty
        )
    }
}
