/// A device of a multi-device btrfs. Each block group's profile says where its
/// chunks may go: raid1 keeps two copies of every chunk on two different devices, so
/// on a two-device raid1 what one device holds can move only within that device, and
/// moving a chunk allocates its new copy on the other device before the old one is
/// freed. carve simulates the relocation on this device alone (as for one device): on
/// more devices than copies the kernel may place chunks elsewhere, which only lowers
/// the true minimum, so a "fits" still holds.
extension BtrfsAllocation {
    public var isMultiDevice: Bool { !otherMembers.isEmpty }

    public var deviceCount: Int { otherMembers.count + 1 }

    /// The profiles in use, in a stable order.
    public var profiles: [Profile] {
        var seen = Set<Profile>()
        return blockGroups.map(\.profile).filter { seen.insert($0).inserted }
    }

    /// A striped profile (raid0, raid10, raid5, raid6), whose stripes are parts of a
    /// chunk: carve cannot simulate its relocation yet, and says so.
    public var stripedProfile: Profile? { profiles.first { $0.mirrors == nil } }

    /// The most copies any profile keeps of a chunk.
    var mostMirrors: Int { profiles.compactMap(\.mirrors).max() ?? 1 }

    /// True when every device holds a copy of every mirrored chunk (raid1 on two devices).
    public var everyDeviceHoldsEveryChunk: Bool { isMultiDevice && mostMirrors >= deviceCount }

    /// When a relocation needs a new chunk, a mirrored one takes a copy on `mirrors - 1`
    /// other devices before the old chunk is freed: that many others need room for one chunk.
    func othersHoldMovingCopies() -> Bool {
        let needed = mostMirrors - 1
        guard needed > 0 else { return true }
        return otherMembers.filter { $0.unallocated >= dataChunkSize }.count >= needed
    }

    /// What the report says about the filesystem's other devices and how to shrink this one.
    public func memberNotes(target: UInt64, mountpoint: String) -> [String] {
        guard isMultiDevice else { return [] }
        let others = otherMembers.map { "\($0.devid) (\(ByteSize.format($0.unallocated)) unallocated)" }.joined(
            separator: ", ")
        var notes = [
            "btrfs over \(deviceCount) devices (\(profiles.map(\.rawValue).joined(separator: ", "))); this is device \(devid), the others are \(others)",
            "shrink this device with `btrfs filesystem resize \(devid):\(target) \(shellQuoted(mountpoint))`",
        ]
        if everyDeviceHoldsEveryChunk {
            notes.append(
                "\(profiles.filter { ($0.mirrors ?? 0) >= deviceCount }.map(\.rawValue).joined(separator: ", ")) keeps a copy of every chunk on each of the \(deviceCount) devices: what this device holds moves only within it, and the others need room for one new chunk while it moves"
            )
        }
        return notes
    }
}
