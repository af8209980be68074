/// The block devices of this machine and their properties. The only way code
/// above the platform layer learns about devices; tests hand in a fake.
public protocol DeviceSource: Sendable {
    /// Every block device, disks before their partitions.
    func devices() throws -> [BlockDevice]
    /// The device at `path` (a /dev node or a symlink to one), or a `UsageError`
    /// naming the path and why it is not a block device.
    func device(at path: String) throws -> BlockDevice
    /// The kernel name of the device at `path`, with the errors of `device(at:)`; a
    /// source may find it without describing the device, which is cheaper.
    func deviceName(at path: String) throws -> String
    /// Fields that could not be read for lack of privileges, e.g. ["LABEL", "UUID"];
    /// empty when running as root or when nothing was missing.
    var fieldsNeedingRoot: [String] { get }
    /// `fieldsNeedingRoot` for the named devices only (kernel names), so a listing of
    /// some devices does not mention fields missing on others.
    func fieldsNeedingRoot(on names: Set<String>) -> [String]
    /// The named devices (kernel names) and everything that sits on them, in
    /// `devices()` order; a source may describe only these, which is cheaper.
    func devices(under names: [String]) throws -> [BlockDevice]
    /// This source, also reading `fields` (what the listing's columns show) besides
    /// the standard ones; a source that always knows everything returns itself.
    func requesting(_ fields: Set<DeviceField>) -> any DeviceSource
    /// This source, listing also what lsblk hides unless `--all`: loop devices with no
    /// file attached and RAM disks.
    func includingEmpty() -> any DeviceSource
    /// Each device's position among its siblings as the kernel lists them (readdir of
    /// /sys/block, of a disk's directory for its partitions, of `holders/`): the order
    /// lsblk meets devices in, which `--sort` keeps for equal values. Empty when unknown.
    func entryOrder() -> [String: Int]
}

extension DeviceSource {
    public func requesting(_ fields: Set<DeviceField>) -> any DeviceSource { self }

    public func includingEmpty() -> any DeviceSource { self }

    public func entryOrder() -> [String: Int] { [:] }

    public func fieldsNeedingRoot(on names: Set<String>) -> [String] { fieldsNeedingRoot }

    public func deviceName(at path: String) throws -> String { try device(at: path).name }

    public func devices(under names: [String]) throws -> [BlockDevice] {
        let all = try devices()
        let wanted = Set(DeviceTree.flattened(DeviceTree.build(all, roots: names)).map(\.name))
        return all.filter { wanted.contains($0.name) }
    }
}
