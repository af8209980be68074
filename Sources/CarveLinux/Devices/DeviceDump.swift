import CarveCore
import Glibc

/// `carve devices --dump DIR`: what `--sysroot DIR` needs of this machine, laid out as
/// util-linux's lsblk dumps are: each listed device's sysfs directory at its own path
/// under DIR/sys/devices (its attributes, queue/, dm/, md/, loop/, holders/ and slaves/
/// links, and the attributes of the devices up its chain that lsblk reads: model,
/// vendor, rev, serial, state, removable), the DIR/sys/block and DIR/sys/dev/block
/// links, /proc/self/mountinfo and /proc/swaps, and each device's properties as udev
/// keys in DIR/dev/NAME. Only DIR is written to; nothing is read from the devices.
/// DIR is made by the dump (or must be empty) and written only through its descriptor,
/// never through a symlink inside it (`DumpDirectory`).
public struct DeviceDump {
    public let host: HostRoot
    public var directory: String { target.path }
    private let target: DumpDirectory

    /// Makes DIR, or takes it when it is an empty directory; a `UsageError` when it is
    /// not empty, a symlink or a file, or its parent does not exist.
    public init(host: HostRoot = .system, directory: String) throws {
        self.host = host
        var absolute = directory.hasPrefix("/") ? directory : Files.workingDirectory + "/" + directory
        while absolute.count > 1 && absolute.hasSuffix("/") { absolute.removeLast() }
        target = try DumpDirectory(making: absolute)
    }

    /// The attributes of a device's own directory that lsblk reads.
    static let attributes = [
        "dev", "size", "ro", "removable", "partition", "start", "alignment_offset", "discard_alignment", "diskseq",
        "capability", "ext_range", "range", "hidden", "dm/name", "dm/uuid", "dm/suspended", "md/level",
        "loop/backing_file", "loop/offset", "loop/sizelimit", "loop/autoclear", "loop/partscan", "loop/dio",
    ]
    /// The attributes of the devices up the chain (a SCSI or NVMe controller, a USB port).
    static let chainAttributes = ["model", "vendor", "rev", "serial", "state", "removable", "wwid"]

    /// Writes the dump of `devices`; returns the names of those whose sysfs directory was gone.
    @discardableResult
    public func write(_ devices: [BlockDevice]) throws -> [String] {
        try target.makeDirectories("/proc/self")
        try target.makeDirectories("/dev")
        var missing: [String] = []
        for device in devices {
            guard try dumpSysfs(of: device.name) else {
                missing.append(device.name)
                continue
            }
            try target.writeFile(String(device.path.map { $0 == "!" ? "/" : $0 }), udevText(for: device))
        }
        for (source, target) in [(host.mountInfo, "/proc/self/mountinfo"), (host.swaps, "/proc/swaps")] {
            if let bytes = Files.contents(source) { try self.target.writeFile(target, bytes) }
        }
        return missing
    }

    /// One device's directory, its attributes and links, and its chain's attributes.
    private func dumpSysfs(of name: String) throws -> Bool {
        let classLink = "\(host.blockClass)/\(name)"
        guard let real = realPath(classLink), real.hasPrefix(host.path("/sys/devices/")) else { return false }
        let relative = String(real.dropFirst(host.prefix.count))
        try target.makeDirectories(relative)
        for attribute in DeviceDump.attributes {
            if let bytes = Files.contents("\(real)/\(attribute)") {
                try target.writeFile(relative + "/" + attribute, bytes)
            }
        }
        for file in Files.names(in: "\(real)/queue") ?? [] {
            if let bytes = Files.contents("\(real)/queue/\(file)") {
                try target.writeFile("\(relative)/queue/\(file)", bytes)
            }
        }
        for links in ["holders", "slaves"] {
            try target.makeDirectories("\(relative)/\(links)")
            for entry in Files.names(in: "\(real)/\(links)") ?? [] {
                if let to = Files.linkTarget("\(real)/\(links)/\(entry)") {
                    try target.link("\(relative)/\(links)/\(entry)", to: to)
                }
            }
        }
        if let to = Files.linkTarget("\(real)/device") { try target.link("\(relative)/device", to: to) }
        // Up the chain to /sys/devices: what lsblk reads through device/ and for HOTPLUG.
        var parent = relative
        while let slash = parent.lastIndex(of: "/"), parent != "/sys/devices" {
            parent = String(parent[..<slash])
            guard parent.count > "/sys/devices".count else { break }
            for attribute in DeviceDump.chainAttributes {
                if let bytes = Files.contents(host.path(parent) + "/" + attribute) {
                    try target.writeFile("\(parent)/\(attribute)", bytes)
                }
            }
        }
        let devBlock = "/sys/dev/block"
        if let dev = Files.text("\(real)/dev")?.trimmingWhitespace {
            try target.link("\(devBlock)/\(dev)", to: "../.." + relative.dropFirst("/sys".count))
        }
        if !Files.exists("\(real)/partition") {
            try target.link("/sys/block/\(name)", to: ".." + relative.dropFirst("/sys".count))
        }
        return true
    }

    /// The device's properties as the udev keys lsblk reads from DIR/dev/NAME.
    func udevText(for device: BlockDevice) -> [UInt8] {
        UdevPropertyFile.render(device.properties, path: device.path, isPartition: device.kind == .part)
    }
}
