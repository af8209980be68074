/// What a plan frees as the filesystem itself measures the set (ZFS's `zfs destroy -n -v
/// -p`), where it can; elsewhere the figure stays the sum of exclusive bytes, a lower
/// bound, and a note says which it is.
extension DeletionPlan {
    /// Asks each filesystem of the plan what its part of `toDelete` frees together.
    public mutating func measureReclaim(with backend: any SnapshotBackend) {
        guard let measuring = backend as? any SnapshotReclaimMeasuring else { return }
        var order: [String] = []
        var parts: [String: [PlannedSnapshot]] = [:]
        for snapshot in toDelete where snapshot.filesystem.kind == .zfs {
            if parts[snapshot.filesystem.uuid] == nil { order.append(snapshot.filesystem.uuid) }
            parts[snapshot.filesystem.uuid, default: []].append(snapshot)
        }
        for uuid in order {
            let part = parts[uuid]!
            let name = part[0].filesystem.mountpoint
            do {
                if let measured = try measuring.measuredReclaim(of: part.map(\.subvolume), on: part[0].filesystem) {
                    measuredReclaims[uuid] = MeasuredPart(count: part.count, bytes: measured.bytes)
                    notes.append(
                        "\(name): \(part.count) snapshot(s) free \(ByteSize.format(measured.bytes)) together, from \(measured.source)"
                    )
                } else {
                    notes.append(
                        "\(name): this zfs has no dry run of a destroy (zfs destroy -n): what the snapshots free is a lower bound, the sum of their used"
                    )
                }
            } catch let error as any ReportableError {
                notes.append("warning: \(name): cannot measure what the snapshots free: \(error.message)")
            } catch {
                notes.append("warning: \(name): cannot measure what the snapshots free: \(error)")
            }
        }
    }

    /// The measured figure for `snapshots` when they are, on every filesystem among them,
    /// exactly the set that was measured; else nil.
    public func measuredReclaim(of snapshots: [PlannedSnapshot]) -> UInt64? {
        guard !measuredReclaims.isEmpty, !snapshots.isEmpty else { return nil }
        var counts: [String: Int] = [:]
        for snapshot in snapshots { counts[snapshot.filesystem.uuid, default: 0] += 1 }
        var total: UInt64 = 0
        for (uuid, count) in counts {
            guard let part = measuredReclaims[uuid], part.count == count else { return nil }
            total += part.bytes
        }
        return total
    }

    /// One filesystem's measured part: how many snapshots, and what they free together.
    public struct MeasuredPart: Sendable, Hashable {
        public var count: Int
        public var bytes: UInt64
    }
}
