import CarveCore

// PLACEHOLDER: replaced by the device-abstraction work (udev, blkid, sysfs, mount table).
public struct LinuxDeviceSource: DeviceSource {
    public init() {}
    public func devices() throws -> [BlockDevice] { throw RuntimeError("devices: not implemented yet") }
    public func device(at path: String) throws -> BlockDevice { throw RuntimeError("devices: not implemented yet") }
    public var fieldsNeedingRoot: [String] { [] }
}
