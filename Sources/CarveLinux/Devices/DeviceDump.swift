import CarveCore
import Glibc

/// `carve devices --dump DIR`: what `--sysroot DIR` needs of this machine, laid out as
/// util-linux's lsblk dumps are: each listed device's sysfs directory at its own path
/// under DIR/sys/devices (its attributes, queue/, dm/, md/, loop/, holders/ and slaves/
/// links, and the attributes of the devices up its chain that lsblk reads: model,
/// vendor, rev, serial, state, removable), the DIR/sys/block and DIR/sys/dev/block
/// links, /proc/self/mountinfo and /proc/swaps, and each device's properties as udev
/// keys in DIR/dev/NAME. Only DIR is written to; nothing is read from the devices.
public struct DeviceDump {
    public let host: HostRoot
    public let directory: String

    public init(host: HostRoot = .system, directory: String) {
        self.host = host
        var absolute = directory.hasPrefix("/") ? directory : Files.workingDirectory + "/" + directory
        while absolute.count > 1 && absolute.hasSuffix("/") { absolute.removeLast() }
        self.directory = absolute
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
        try makeDirectories(directory + "/proc/self")
        try makeDirectories(directory + "/dev")
        var missing: [String] = []
        for device in devices {
            guard try dumpSysfs(of: device.name) else {
                missing.append(device.name)
                continue
            }
            try writeFile(String(device.path.map { $0 == "!" ? "/" : $0 }), udevText(for: device))
        }
        for (source, target) in [(host.mountInfo, "/proc/self/mountinfo"), (host.swaps, "/proc/swaps")] {
            if let bytes = Files.contents(source) { try writeFile(target, bytes) }
        }
        return missing
    }

    /// One device's directory, its attributes and links, and its chain's attributes.
    private func dumpSysfs(of name: String) throws -> Bool {
        let classLink = "\(host.blockClass)/\(name)"
        guard let real = realPath(classLink), real.hasPrefix(host.path("/sys/devices/")) else { return false }
        let relative = String(real.dropFirst(host.prefix.count))
        let target = directory + relative
        try makeDirectories(target)
        for attribute in DeviceDump.attributes {
            if let bytes = Files.contents("\(real)/\(attribute)") { try writeFile(relative + "/" + attribute, bytes) }
        }
        for file in Files.names(in: "\(real)/queue") ?? [] {
            if let bytes = Files.contents("\(real)/queue/\(file)") { try writeFile("\(relative)/queue/\(file)", bytes) }
        }
        for links in ["holders", "slaves"] {
            try makeDirectories("\(target)/\(links)")
            for entry in Files.names(in: "\(real)/\(links)") ?? [] {
                if let to = Files.linkTarget("\(real)/\(links)/\(entry)") {
                    try link("\(target)/\(links)/\(entry)", to)
                }
            }
        }
        if let to = Files.linkTarget("\(real)/device") { try link("\(target)/device", to) }
        // Up the chain to /sys/devices: what lsblk reads through device/ and for HOTPLUG.
        var parent = relative
        while let slash = parent.lastIndex(of: "/"), parent != "/sys/devices" {
            parent = String(parent[..<slash])
            guard parent.count > "/sys/devices".count else { break }
            for attribute in DeviceDump.chainAttributes {
                if let bytes = Files.contents(host.path(parent) + "/" + attribute) {
                    try writeFile("\(parent)/\(attribute)", bytes)
                }
            }
        }
        let devBlock = "/sys/dev/block"
        if let dev = Files.text("\(real)/dev")?.trimmingWhitespace {
            try makeDirectories(directory + devBlock)
            try link("\(directory)\(devBlock)/\(dev)", "../.." + relative.dropFirst("/sys".count))
        }
        if !Files.exists("\(real)/partition") {
            try makeDirectories(directory + "/sys/block")
            try link("\(directory)/sys/block/\(name)", ".." + relative.dropFirst("/sys".count))
        }
        return true
    }

    /// The device's properties as the udev keys lsblk reads from DIR/dev/NAME.
    func udevText(for device: BlockDevice) -> [UInt8] {
        UdevPropertyFile.render(device.properties, path: device.path, isPartition: device.kind == .part)
    }

    private func writeFile(_ relative: String, _ bytes: [UInt8]) throws {
        let path = directory + relative
        if let slash = path.lastIndex(of: "/") { try makeDirectories(String(path[..<slash])) }
        let file = try FileDescriptor.open(
            path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: 0o644, "cannot write \(path)")
        let fd = file.fd
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw SystemCallError("cannot write \(path)", call: "write", errno: errno) }
            offset += written
        }
    }

    private func link(_ path: String, _ target: String) throws {
        _ = ByteText.withCString(path) { unlink($0) }
        let result = ByteText.withCString(target) { to in ByteText.withCString(path) { symlink(to, $0) } }
        guard result == 0 else { throw SystemCallError("cannot write \(path)", call: "symlink", errno: errno) }
    }

    private func makeDirectories(_ path: String) throws {
        var current = ""
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            current += "/" + part
            if ByteText.withCString(current, { mkdir($0, 0o755) }) != 0 && errno != EEXIST {
                throw SystemCallError("cannot create \(current)", call: "mkdir", errno: errno)
            }
        }
    }
}
