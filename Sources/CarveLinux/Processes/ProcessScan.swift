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
    /// Read as bytes: the maps of every process come to hundreds of kilobytes, and
    /// decoding and splitting them as Strings was most of a deletion run's look at /proc.
    static func ranges(ofFilesIn bytes: [UInt8]) -> [String] {
        var seen = Set<ArraySlice<UInt8>>()
        var ranges: [String] = []
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            if let (range, identity) = fileRange(bytes[start..<end]), seen.insert(identity).inserted {
                ranges.append(String(decoding: range, as: UTF8.self))
            }
            start = end + 1
        }
        return ranges
    }

    /// The range and the device-and-inode of a line that maps a file on a device of major
    /// 0; nil for any other line.
    private static func fileRange(_ line: ArraySlice<UInt8>) -> (ArraySlice<UInt8>, ArraySlice<UInt8>)? {
        let space = UInt8(ascii: " ")
        var fields: [Range<Int>] = []
        var index = line.startIndex
        while fields.count < 5 {
            while index < line.endIndex && line[index] == space { index += 1 }
            guard index < line.endIndex else { return nil }
            let fieldStart = index
            while index < line.endIndex && line[index] != space { index += 1 }
            fields.append(fieldStart..<index)
        }
        while index < line.endIndex && line[index] == space { index += 1 }
        let device = line[fields[3]], inode = line[fields[4]]
        guard index < line.endIndex, line[index] == UInt8(ascii: "/"), device.starts(with: "00:".utf8),
            !inode.elementsEqual("0".utf8)
        else { return nil }
        return (line[fields[0]], line[fields[3].lowerBound..<fields[4].upperBound])
    }
}
