import CUdev
import CarveCore
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
