/// `carve check DEVICE --remove`: whether the other devices of a multi-device btrfs can
/// take everything this one holds (`btrfs device remove`), by profile. Each chunk with a
/// stripe here needs a new one of the same length on a remaining device that holds no
/// copy of it yet (two copies of a raid1 chunk never share a device), placed largest
/// first on the device with the most room, as the kernel's allocator prefers; what is
/// left must still cover the margin a relocation's own writes need. Whole stripes are
/// counted, not only their used bytes: a "fits" must hold.
extension BtrfsAllocation {
    /// The fewest devices a profile runs on (the kernel's devs_min).
    static func fewestDevices(_ profile: Profile) -> Int {
        switch profile {
        case .single, .dup, .raid0: 1
        case .raid1, .raid10, .raid5: 2
        case .raid1c3, .raid6: 3
        case .raid1c4: 4
        }
    }

    /// What stands in the way of removing this device; empty when the others take it all.
    public func removalBlockers(device: String) -> [Blocker] {
        guard isMultiDevice else {
            return [Blocker(.cannotRemove, detail: "\(device) is the only device of its btrfs filesystem")]
        }
        var blockers: [Blocker] = []
        for profile in profiles where Self.fewestDevices(profile) > deviceCount - 1 {
            blockers.append(
                Blocker(
                    .cannotRemove,
                    detail: "\(profile.rawValue) needs at least \(Self.fewestDevices(profile)) devices, "
                        + "and removing \(device) leaves \(deviceCount - 1)"))
        }
        if let striped = stripedProfile {
            blockers.append(
                Blocker(
                    .cannotTell,
                    detail: "\(striped.rawValue) restripes every chunk over the devices left: carve cannot tell yet"))
        }
        guard blockers.isEmpty else { return blockers }
        let short = removalShortfall()
        if short > 0 {
            blockers.append(
                Blocker(
                    .noRoom, bytes: short,
                    detail: "the other devices lack \(ByteSize.format(short)) of unallocated space "
                        + "for the chunks \(device) holds (\(ByteSize.format(allocated)) allocated, each copy on a device of its own)"
                ))
        }
        return blockers
    }

    /// Bytes the remaining devices lack to take this device's stripes and keep the margin; 0 when they fit.
    func removalShortfall() -> UInt64 {
        var room = Dictionary(uniqueKeysWithValues: otherMembers.map { ($0.devid, $0.unallocated) })
        let holders = chunkHolders()
        var short: UInt64 = 0
        // A DUP chunk's two stripes move together, onto one device.
        let moving = Dictionary(grouping: extents, by: \.chunk).map { chunk, stripes in
            (chunk: chunk, length: stripes.reduce(0) { $0 + $1.length })
        }
        for stripe in moving.sorted(by: { $0.length > $1.length }) {
            let candidates = room.filter { !(holders[stripe.chunk] ?? []).contains($0.key) }
            guard let best = candidates.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }),
                best.value >= stripe.length
            else {
                short += stripe.length - (candidates.values.max() ?? 0)
                continue
            }
            room[best.key] = best.value - stripe.length
        }
        let left = room.values.reduce(0, +)
        return short + (left >= margin ? 0 : margin - left)
    }

    /// For each chunk, the other devices that already hold a stripe of it.
    func chunkHolders() -> [UInt64: Set<UInt64>] {
        var holders: [UInt64: Set<UInt64>] = [:]
        for (devid, stripes) in memberExtents {
            for stripe in stripes { holders[stripe.chunk, default: []].insert(devid) }
        }
        return holders
    }
}

extension CheckPlanner {
    /// Whether the device can leave its mounted multi-device btrfs.
    public static func remove(_ subject: ShrinkSubject) -> CheckReport {
        let device = subject.device.path
        var report = CheckReport(
            device: device, filesystem: subject.fsType, operation: .remove, currentSize: subject.currentSize,
            targetSize: 0,
            minimumSource: subject.figures.source
        )
        guard let mountpoint = subject.mountpoints.first else {
            report.blockers.append(
                Blocker(.mustMount, detail: "a btrfs device is removed while mounted, and \(device) is not mounted"))
            report.remedies.append(
                Remedy(command: "mount \(shellQuoted(device)) /mnt", detail: "mount it, then check again"))
            return report
        }
        guard let btrfs = subject.figures.btrfs else {
            let why = subject.figures.note.map { ": \($0)" } ?? ""
            report.blockers.append(Blocker(.cannotTell, detail: "cannot read how \(device) is allocated\(why)"))
            return report
        }
        report.blockers = btrfs.removalBlockers(device: device)
        if report.blockers.isEmpty {
            report.notes.append(
                "remove it with `btrfs device remove \(btrfs.devid) \(shellQuoted(mountpoint))`: "
                    + "its \(ByteSize.format(btrfs.allocated)) of chunks move to the other devices")
        }
        return report
    }
}
