/// `carve check` on a partition that belongs to a ZFS pool (blkid TYPE `zfs_member`): ZFS
/// cannot shrink a vdev, so the answer is never "fits". The report names the pool and its
/// layout, and the ways that do exist: move this device's data elsewhere in the pool
/// (`zpool replace` onto a device at least as large, `zpool detach` from a mirror,
/// `zpool remove` of a top-level vdev where the pool allows it, or of a log, cache or
/// spare), or copy the pool to a new one (`zfs send -R | zfs receive`). All of ZFS's part
/// of `check` is here, so it moves as one piece.
public enum ZFSMemberCheck {
    public static let fsType = "zfs_member"

    /// The shrink table's row.
    static let rule = ShrinkRule(
        types: [fsType], ability: .cannotShrink, tool: nil,
        note: "a ZFS pool's devices cannot be shrunk; move the pool's data off this one, or copy the pool to a new one"
    )

    /// The pool's layout for the subject (gathered once, `Gatherer`), or why it is unknown.
    static func gather(_ subject: inout ShrinkSubject, pools: (any ZFSPoolReading)?) {
        guard subject.fsType == fsType else { return }
        guard let name = subject.device.properties.label, let pools else {
            subject.zfsPoolNote = "the pool's name or layout cannot be read here (no pool name or no zpool)"
            return
        }
        do {
            subject.zfsPool = try pools.layout(ofPool: name)
        } catch let error as any ReportableError {
            subject.zfsPoolNote = "cannot read pool \(name)'s layout: \(error.message)"
        } catch {
            subject.zfsPoolNote = "cannot read pool \(name)'s layout: \(error)"
        }
    }

    /// Adds what the pool is and the ways that exist to the report (its blocker is the rule's).
    static func add(_ subject: ShrinkSubject, into report: inout CheckReport) {
        guard subject.fsType == fsType else { return }
        let device = subject.device.path
        let poolName = subject.zfsPool?.pool ?? subject.device.properties.label ?? "POOL"
        let pool = shellQuoted(poolName)
        let dev = shellQuoted(device)
        if let note = subject.zfsPoolNote { report.notes.append(note) }
        guard let layout = subject.zfsPool else {
            report.notes.append("\(device) is a device of ZFS pool \(poolName)")
            report.remedies.append(copy(pool))
            return
        }
        let vdev = layout.vdev(holding: device)
        report.notes.append(
            "\(device) is a device of ZFS pool \(poolName) (\(layout.state ?? "state unknown")): \(layout.summary)"
                + (vdev.map { vdev in
                    vdev.section.map { "; it is a \($0) device" }
                        ?? (vdev.kind == "disk" ? "; it is a top-level vdev by itself" : "; it is in \(vdev.name)")
                } ?? "; zpool status does not name it"))
        guard let vdev else {
            report.remedies.append(copy(pool))
            return
        }
        if let section = vdev.section {
            report.remedies.append(
                Remedy(
                    command: "zpool remove \(pool) \(dev)",
                    detail: "a \(section) device leaves the pool without moving any data"))
            return
        }
        report.remedies.append(
            Remedy(
                command: "zpool replace \(pool) \(dev) NEWDEVICE",
                detail: "moves its data onto NEWDEVICE (at least as large); \(device) is then free"))
        if vdev.kind == "mirror", vdev.devices.count > 1 {
            report.remedies.append(
                Remedy(
                    command: "zpool detach \(pool) \(dev)",
                    detail:
                        "the mirror keeps its other side (\(vdev.devices.count - 1) device(s)); \(device) is then free"
                ))
        } else if vdev.kind == "mirror" || vdev.kind == "disk", layout.dataVdevs.count > 1,
            !layout.dataVdevs.contains(where: { $0.kind.hasPrefix("raidz") || $0.kind.hasPrefix("draid") })
        {
            report.remedies.append(
                Remedy(
                    command:
                        "zpool remove \(pool) \(shellQuoted(vdev.kind == "disk" ? device : vdev.name))",
                    detail:
                        "copies the top-level vdev's data to the pool's other top-level vdevs (OpenZFS 0.8 or later, "
                        + "with room for it); \(device) is then free"))
        }
        report.remedies.append(copy(pool))
    }

    private static func copy(_ pool: String) -> Remedy {
        Remedy(
            command: "zfs snapshot -r \(pool)@move && zfs send -R \(pool)@move | zfs receive -F NEWPOOL",
            detail: "copies the whole pool to a new, smaller pool NEWPOOL; then destroy \(pool) to free its devices")
    }
}

/// Reads a pool's layout (`zpool status`); CarveLinux runs the real `zpool`.
public protocol ZFSPoolReading: Sendable {
    func layout(ofPool name: String) throws -> ZFSPoolLayout
}
