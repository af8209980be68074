import CarveCore
import Glibc

/// What one read of /proc saw: the device of everything each readable process holds,
/// and what it could not see.
struct ProcessLook: Sendable {
    /// Device number → the pids holding something on it, each pid once, in pid order.
    var byDevice: [UInt64: [Int32]] = [:]
    /// Processes whose holdings could not be read (EACCES, EPERM), each with the
    /// devices of the filesystems its mount namespace shows (nil when that is unknown).
    var unseen: [Int32: Set<DeviceNumber>?] = [:]
    /// Why `unseen` could not be read.
    var unseenCause = ""
    /// Set when some processes could not even be listed: every volume may be held.
    var blind: String?
}

/// One read of /proc (under the host root): the device of everything each process
/// holds. Everything is opened relative to the process's directory, so a process that
/// exits meanwhile just drops out; one that cannot be read is kept apart, never taken
/// for one holding nothing.
struct ProcessScan {
    let host: HostRoot

    func look() -> ProcessLook {
        var look = ProcessLook()
        let proc: FileDescriptor
        do {
            proc = try FileDescriptor.open(host.processes, O_RDONLY | O_DIRECTORY, "cannot read /proc")
        } catch {
            look.blind = "cannot read /proc: \(error.cause)"
            return look
        }
        guard let stream = proc.directoryStream() else {
            look.blind = "cannot read /proc"
            return look
        }
        let status = Files.text(host.path("/proc/self/status")).map(ProcStatus.init) ?? ProcStatus("")
        look.blind = ProcessVisibility.blindness(
            ownPIDNamespace: Files.linkTarget(host.path("/proc/self/ns/pid")),
            procMount: procMountOptions(), canTraceAll: status.hasCapability(ProcStatus.capSysPtrace))
        if look.blind != nil { return look }
        // carve itself (its working directory may be in a snapshot it deletes by name).
        let own = host.prefix.isEmpty ? getpid() : -1
        while let entry = stream.next() {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            guard !name.isEmpty, name.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let pid = Int32(String(decoding: name, as: UTF8.self)), pid != own
            else { continue }
            guard
                let directory = try? FileDescriptor.open(
                    String(decoding: name, as: UTF8.self), O_RDONLY | O_DIRECTORY, relativeTo: proc, "")
            else { continue }
            var held = HeldDevices()
            held.read(directory)
            if held.denied {
                if !Self.holdsNothing(directory) { look.unseen[pid] = Self.mountedDevices(directory) }
                continue
            }
            for device in held.devices where look.byDevice[device]?.last != pid {
                look.byDevice[device, default: []].append(pid)
            }
        }
        for device in look.byDevice.keys { look.byDevice[device]!.sort() }
        if !look.unseen.isEmpty {
            look.unseenCause =
                status.hasCapability(ProcStatus.capSysPtrace) == false
                ? "no CAP_SYS_PTRACE" : "the kernel denied reading them (a security module?)"
        }
        return look
    }

    /// The process's command name; "?" when it has gone.
    func command(of pid: Int32) -> String {
        guard let text = Files.text(host.path("/proc/\(pid)/comm")) else { return "?" }
        return String(text.prefix { $0 != "\n" })
    }

    /// The options of the proc mount carve reads, from its own mount table.
    private func procMountOptions() -> [String]? {
        guard let text = Files.text(host.mountInfo), let entries = try? MountInfo.parse(text) else { return nil }
        return entries.last { $0.mountpoint == "/proc" && $0.fsType == "proc" }.map(\.superOptions)
    }

    /// True for a kernel thread or a zombie (see `ProcStat.holdsNothing`).
    static func holdsNothing(_ process: FileDescriptor) -> Bool {
        guard let stat = try? FileDescriptor.open("stat", O_RDONLY, relativeTo: process, ""),
            let bytes = try? Files.contents(of: stat.fd, "stat")
        else { return false }
        return ProcStat.holdsNothing(bytes)
    }

    /// The devices of the filesystems the process's mount namespace shows: its
    /// mountinfo is readable where its descriptors are not.
    static func mountedDevices(_ process: FileDescriptor) -> Set<DeviceNumber>? {
        guard let file = try? FileDescriptor.open("mountinfo", O_RDONLY, relativeTo: process, ""),
            let bytes = try? Files.contents(of: file.fd, "mountinfo")
        else { return nil }
        return MountInfo.deviceNumbers(in: bytes)
    }
}

/// The devices one process holds: its working and root directory, open files and
/// mapped files, and whether any of them was denied to carve.
struct HeldDevices {
    var devices = Set<UInt64>()
    /// Some link could not be read for want of access (EACCES, EPERM): what the process
    /// holds is unknown. A link that is gone (ENOENT: the process or descriptor went
    /// meanwhile) is not.
    var denied = false

    mutating func read(_ process: FileDescriptor) {
        for link in ["cwd", "root"] { look(at: link, in: process.fd) }
        readDescriptors(of: process)
        guard !denied else { return }
        for range in mappedFileRanges(of: process) { look(at: "map_files/" + range, in: process.fd) }
    }

    private mutating func look(at name: String, in directory: Int32) {
        guard !denied else { return }
        var info = stat()
        if fstatat(directory, name, &info, 0) == 0 {
            devices.insert(UInt64(info.st_dev))
        } else if errno == EACCES || errno == EPERM {
            denied = true
        }
    }

    /// One address range per distinct mapped file on a device without a block device
    /// (major 0: btrfs reports its anonymous devices; ext4 or xfs on a disk cannot hold
    /// a btrfs snapshot's file), as `map_files` names them (`START-END`).
    private mutating func mappedFileRanges(of process: FileDescriptor) -> [String] {
        do {
            let maps = try FileDescriptor.open("maps", O_RDONLY, relativeTo: process, "cannot read maps")
            return MapsLines.ranges(ofFilesIn: try Files.contents(of: maps.fd, "cannot read maps"))
        } catch let error as SystemCallError {
            if error.errno == EACCES || error.errno == EPERM { denied = true }
        } catch {}
        return []
    }

    private mutating func readDescriptors(of process: FileDescriptor) {
        guard !denied else { return }
        let opened: FileDescriptor
        do {
            opened = try FileDescriptor.open("fd", O_RDONLY | O_DIRECTORY, relativeTo: process, "")
        } catch {
            if error.errno == EACCES || error.errno == EPERM { denied = true }
            return
        }
        guard let stream = opened.directoryStream() else { return }
        while !denied, let entry = stream.next() {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { look(at: name, in: stream.fd) }
        }
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
    /// 0; nil for any other line. Fields are taken one by one and a line is dropped at its
    /// device: most lines map a disk's file or nothing, and an array of the five fields
    /// made for each line of every process was a third of the look at /proc.
    private static func fileRange(_ line: ArraySlice<UInt8>) -> (ArraySlice<UInt8>, ArraySlice<UInt8>)? {
        let space = UInt8(ascii: " ")
        var index = line.startIndex
        func nextField() -> Range<Int>? {
            while index < line.endIndex && line[index] == space { index += 1 }
            guard index < line.endIndex else { return nil }
            let start = index
            while index < line.endIndex && line[index] != space { index += 1 }
            return start..<index
        }
        guard let range = nextField(), nextField() != nil, nextField() != nil, let device = nextField(),
            line[device].starts(with: "00:".utf8), let inode = nextField(), !line[inode].elementsEqual("0".utf8)
        else { return nil }
        while index < line.endIndex && line[index] == space { index += 1 }
        guard index < line.endIndex, line[index] == UInt8(ascii: "/") else { return nil }
        return (line[range], line[device.lowerBound..<inode.upperBound])
    }
}
