import CarveCore
import Foundation

/// Device sources whose faults are scripted, for the inventory's fault tests:
/// an enumeration that fails, a sysfs that fails on the Nth device or loses a
/// device between listing and reading it, and hooks that run between the steps
/// (a real test detaches a loop device there).

/// Names the given devices, or throws `failure` instead.
public struct ScriptedEnumerator: BlockDeviceEnumerator {
    public var names: [String]
    public var failure: (any Error & Sendable)?
    public init(_ names: [String], failure: (any Error & Sendable)? = nil) {
        self.names = names; self.failure = failure
    }
    public func blockDevices() throws -> [EnumeratedDevice] {
        if let failure { throw failure }
        return names.map { EnumeratedDevice(name: $0, node: "/dev/\($0)") }
    }
}

/// Wraps an attribute source: runs `before` ahead of each read, answers nil for
/// devices that have `vanished`, and throws `failure` on the `failOnCall`-th read.
public final class FaultyAttributes: DeviceAttributeSource, @unchecked Sendable {
    private let base: any DeviceAttributeSource
    private let lock = NSLock()
    private var count = 0
    public var vanished: Set<String> = []
    public var failOnCall: Int?
    public var failure: any Error & Sendable = SystemCallError("cannot read sysfs", call: "read", errno: 5)
    public var before: @Sendable (String) -> Void = { _ in }
    /// Devices asked about, in order.
    public private(set) var asked: [String] = []

    public init(_ base: any DeviceAttributeSource) { self.base = base }

    public func attributes(of name: String) throws -> SysfsDevice? {
        let call: Int = lock.withLock {
            count += 1; asked.append(name); return count
        }
        before(name)
        if call == failOnCall { throw failure }
        if lock.withLock({ vanished.contains(name) }) { return nil }
        return try base.attributes(of: name)
    }
}

/// Wraps a property source: runs `before` ahead of probing each device, so a
/// test can take the device away between listing and probing.
public struct InterposedPropertySource: DevicePropertySource {
    public let base: any DevicePropertySource
    public let before: @Sendable (BlockDevice) -> Void
    public init(_ base: any DevicePropertySource, before: @escaping @Sendable (BlockDevice) -> Void) {
        self.base = base; self.before = before
    }
    public var name: String { base.name }
    public var fields: Set<DeviceField> { base.fields }
    public func properties(of device: BlockDevice, parent: BlockDevice?) throws -> DeviceProperties? {
        before(device)
        return try base.properties(of: device, parent: parent)
    }
}
