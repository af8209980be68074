import CUdev
import CarveCore
import Foundation
import Glibc

/// A libudev context (`struct udev`), unreferenced when dropped.
final class UdevContext {
    let handle: OpaquePointer

    init() throws(SystemCallError) {
        guard let handle = udev_new() else {
            throw SystemCallError("cannot open the udev database", call: "udev_new", errno: errno)
        }
        self.handle = handle
    }

    deinit { udev_unref(handle) }

    /// The device of the `block` subsystem named `name`, or nil when sysfs has none.
    func blockDevice(named name: String) -> UdevDevice? {
        udev_device_new_from_subsystem_sysname(handle, "block", name).map(UdevDevice.init)
    }
}

/// One libudev device: sysfs identity plus its udev database record, if any.
final class UdevDevice {
    let handle: OpaquePointer
    init(_ handle: OpaquePointer) { self.handle = handle }
    deinit { udev_device_unref(handle) }

    var name: String? { udev_device_get_sysname(handle).map { ByteText.decode(cString: $0) } }
    var node: String? { udev_device_get_devnode(handle).map { ByteText.decode(cString: $0) } }

    /// True once udevd has processed the device and written its database record.
    var isInitialized: Bool { udev_device_get_is_initialized(handle) > 0 }

    /// A property from the udev database; nil when absent or empty.
    func property(_ key: String) -> String? {
        guard let value = udev_device_get_property_value(handle, key) else { return nil }
        let text = ByteText.decode(cString: value)
        return text.isEmpty ? nil : text
    }
}

/// A libudev enumeration of one subsystem. It scans sysfs, so it works without udevd.
final class UdevEnumeration {
    let handle: OpaquePointer
    let context: UdevContext

    init(_ context: UdevContext, subsystem: String) throws(SystemCallError) {
        guard let handle = udev_enumerate_new(context.handle) else {
            throw SystemCallError("cannot list \(subsystem) devices", call: "udev_enumerate_new", errno: errno)
        }
        self.handle = handle
        self.context = context
        let matched = udev_enumerate_add_match_subsystem(handle, subsystem)
        guard matched >= 0 else {
            throw SystemCallError("cannot list \(subsystem) devices", call: "udev_enumerate_add_match_subsystem", errno: -matched)
        }
    }

    deinit { udev_enumerate_unref(handle) }

    /// The sysfs paths of the matching devices.
    func scan() throws(SystemCallError) -> [String] {
        let scanned = udev_enumerate_scan_devices(handle)
        guard scanned >= 0 else {
            throw SystemCallError("cannot list block devices", call: "udev_enumerate_scan_devices", errno: -scanned)
        }
        var paths: [String] = []
        var entry = udev_enumerate_get_list_entry(handle)
        while let current = entry {
            if let name = udev_list_entry_get_name(current) { paths.append(ByteText.decode(cString: name)) }
            entry = udev_list_entry_get_next(current)
        }
        return paths
    }

    func device(atSysPath path: String) -> UdevDevice? {
        udev_device_new_from_syspath(context.handle, path).map(UdevDevice.init)
    }
}

/// Names the machine's block devices through libudev's `block` subsystem.
public struct UdevBlockEnumerator: BlockDeviceEnumerator {
    public init() {}

    public func blockDevices() throws -> [EnumeratedDevice] {
        let enumeration = try UdevEnumeration(try UdevContext(), subsystem: "block")
        // The kernel name is the sysfs path's last component and the node is named
        // after it ('!' standing for '/', as in cciss!c0d0): no device object per entry.
        return try enumeration.scan().compactMap { path in
            guard let name = path.split(separator: "/").last.map(String.init) else { return nil }
            return EnumeratedDevice(name: name, node: "/dev/" + name.replacingOccurrences(of: "!", with: "/"))
        }
    }
}
