import CarveCore
import Foundation

/// Processes holding volumes, by volume id, for unit and CLI tests; `onRecheck` lets a
/// test change who holds what between the plan and a deletion, as a real process would.
public final class FakeVolumeHolders: VolumeHolders, @unchecked Sendable {
    private let lock = NSLock()
    private var byID: [UInt64: [VolumeHolder]]
    /// Processes the fake "cannot look into", and the volumes they might hold (nil: all).
    public var unseen: (processes: UnseenProcesses, volumes: Set<UInt64>?)?
    public private(set) var refreshes = 0
    /// Applied once, at the first look right before a deletion.
    public var onRecheck: (([UInt64: [VolumeHolder]]) -> [UInt64: [VolumeHolder]])?
    public private(set) var looks = 0
    public private(set) var rechecks = 0

    public init(_ byID: [UInt64: [VolumeHolder]] = [:]) { self.byID = byID }

    public func refresh() {
        lock.lock()
        defer { lock.unlock() }
        refreshes += 1
    }

    public func holders(of volume: Volume, on filesystem: Filesystem, recheck: Bool) -> VolumeHolding {
        lock.lock()
        defer { lock.unlock() }
        looks += 1
        if recheck {
            rechecks += 1
            if let change = onRecheck {
                byID = change(byID)
                onRecheck = nil
            }
        }
        let blind = unseen.flatMap { $0.volumes == nil || $0.volumes!.contains(volume.id) ? $0.processes : nil }
        return VolumeHolding(holders: byID[volume.id] ?? [], unseen: blind)
    }
}
