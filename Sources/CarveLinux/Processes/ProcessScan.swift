import CarveCore
import Glibc

/// One read of /proc (under the host root): the device of everything each process
/// holds. Everything is opened relative to the process's directory, so a process that
/// exits meanwhile just drops out.
struct ProcessScan {
    let host: HostRoot

    /// Device number → the pids holding something on it, each pid once, in pid order.
    func heldDevices() -> [UInt64: [Int32]] {
        let procPath = host.path("/proc")
        guard let proc = try? FileDescriptor.open(procPath, O_RDONLY | O_DIRECTORY, ""),
            let stream = proc.directoryStream()
        else { return [:] }
        defer { closedir(stream) }
        // carve itself (its working directory may be in a snapshot it deletes by name).
        let own = host.prefix.isEmpty ? getpid() : -1
        var byDevice: [UInt64: [Int32]] = [:]
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            guard !name.isEmpty, name.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let pid = Int32(String(decoding: name, as: UTF8.self)), pid != own
            else { continue }
            guard
                let directory = try? FileDescriptor.open(
                    String(decoding: name, as: UTF8.self), O_RDONLY | O_DIRECTORY, relativeTo: proc, "")
            else { continue }
            for device in Self.devices(heldBy: directory) where byDevice[device]?.last != pid {
                byDevice[device, default: []].append(pid)
            }
        }
        for device in byDevice.keys { byDevice[device]!.sort() }
        return byDevice
    }

    /// The process's command name; "?" when it has gone.
    func command(of pid: Int32) -> String {
        guard let text = Files.text(host.path("/proc/\(pid)/comm")) else { return "?" }
        return String(text.prefix { $0 != "\n" })
    }

    /// The devices of the process's working and root directory, open files and mapped files.
    static func devices(heldBy process: FileDescriptor) -> Set<UInt64> {
        var devices = Set<UInt64>()
        for link in ["cwd", "root"] {
            if let device = device(at: link, in: process.fd) { devices.insert(device) }
        }
        forEachEntry(of: "fd", in: process) { directory, name in
            if let device = device(at: name, in: directory) { devices.insert(device) }
        }
        for range in mappedFileRanges(of: process) {
            if let device = device(at: "map_files/" + range, in: process.fd) { devices.insert(device) }
        }
        return devices
    }

    private static func device(at name: String, in directory: Int32) -> UInt64? {
        var info = stat()
        guard fstatat(directory, name, &info, 0) == 0 else { return nil }
        return UInt64(info.st_dev)
    }

    private static func forEachEntry(of name: String, in process: FileDescriptor, _ visit: (Int32, String) -> Void) {
        guard let opened = try? FileDescriptor.open(name, O_RDONLY | O_DIRECTORY, relativeTo: process, ""),
            let stream = opened.directoryStream()
        else { return }
        defer { closedir(stream) }
        let directory = opened.fd
        while let entry = readdir(stream) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if entryName != "." && entryName != ".." { visit(directory, entryName) }
        }
    }

    /// One address range per distinct mapped file on a device without a block device
    /// (major 0: btrfs reports its anonymous devices; ext4 or xfs on a disk cannot hold
    /// a btrfs snapshot's file), as `map_files` names them (`START-END`).
    static func mappedFileRanges(of process: FileDescriptor) -> [String] {
        guard let maps = try? FileDescriptor.open("maps", O_RDONLY, relativeTo: process, ""),
            let bytes = try? Files.contents(of: maps.fd, "maps")
        else { return [] }
        return MapsLines.ranges(ofFilesIn: bytes)
    }
}

/// `/proc/PID/maps` lines: `START-END PERMS OFFSET MAJ:MIN INODE PATH`.
enum MapsLines {
    /// The range of each distinct file (by device and inode) mapped from a device of major 0.
    static func ranges(ofFilesIn bytes: [UInt8]) -> [String] {
        var seen = Set<Substring>()
        var ranges: [String] = []
        let text = String(decoding: bytes, as: UTF8.self)
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[3].hasPrefix("00:"), fields[4] != "0", fields[5].hasPrefix("/") else {
                continue
            }
            let identity = line[fields[3].startIndex..<fields[4].endIndex]
            if seen.insert(identity).inserted { ranges.append(String(fields[0])) }
        }
        return ranges
    }
}
