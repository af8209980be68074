import CarveCore
import Foundation

/// Processes holding volumes, by volume id, for unit and CLI tests; `onRecheck` lets a
/// test change who holds what between the plan and a deletion, as a real process would.
public final class FakeVolumeHolders: VolumeHolders, @unchecked Sendable {
    private let lock = NSLock()
    private var byID: [UInt64: [VolumeHolder]]
    /// Applied once, at the first look right before a deletion.
    public var onRecheck: (([UInt64: [VolumeHolder]]) -> [UInt64: [VolumeHolder]])?
    public private(set) var looks = 0
    public private(set) var rechecks = 0

    public init(_ byID: [UInt64: [VolumeHolder]] = [:]) { self.byID = byID }

    public func holders(of volume: Volume, on filesystem: Filesystem, recheck: Bool) -> [VolumeHolder] {
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
        return byID[volume.id] ?? []
    }
}
