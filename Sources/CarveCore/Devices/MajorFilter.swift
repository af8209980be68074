/// lsblk's `--exclude` and `--include`: top-level devices kept or left out by their
/// major number, with everything that sits on them. RAM disks (1) are left out unless
/// `--all` or an explicit list says otherwise.
public struct MajorFilter: Sendable, Hashable {
    public var excluded: Set<UInt32>
    /// nil: every major not excluded.
    public var included: Set<UInt32>?

    public init(excluded: Set<UInt32> = [1], included: Set<UInt32>? = nil) {
        self.excluded = excluded
        self.included = included
    }

    public func keeps(_ device: BlockDevice) -> Bool {
        !excluded.contains(device.number.major) && (included?.contains(device.number.major) ?? true)
    }

    /// The forest without the top-level devices this filter leaves out, nor what sits
    /// on them: lsblk filters the devices it finds in /sys/block, not their partitions
    /// or holders.
    public func apply(_ forest: [DeviceTreeNode]) -> [DeviceTreeNode] {
        forest.filter { keeps($0.device) }
    }
}
