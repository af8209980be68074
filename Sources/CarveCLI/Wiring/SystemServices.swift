import CarveCore
import CarveLinux
#if canImport(Glibc)
import Glibc
#endif

/// stdout and stderr of the process, written with write(2) so that output is
/// never held in a buffer when carve is interrupted.
struct StandardOutput: OutputSink {
    func write(_ text: String) { writeAll(1, text) }
    func writeError(_ text: String) { writeAll(2, text) }

    /// A byte that is not UTF-8 (a name in a message) is written as `\xHH`, as
    /// tables show it; tables and JSON have escaped theirs already.
    private func writeAll(_ fd: Int32, _ text: String) {
        var text = text
        // memchr finds the lead byte of a carried byte at memory speed; listings are megabytes.
        if text.withUTF8({ !$0.isEmpty && memchr($0.baseAddress!, 0xF4, $0.count) != nil }) {
            text = ByteText.escapingCarriedBytes(text)
        }
        text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
    }

    /// A listing's chunk straight from its buffer: no String made (and its UTF-8 checked) first.
    func write(bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        guard memchr(bytes.baseAddress!, 0xF4, bytes.count) == nil else {
            return write(String(decoding: bytes, as: UTF8.self))
        }
        writeAll(1, bytes)
    }

    private func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}

extension Services {
    /// The real machine: udev/blkid/sysfs devices, btrfs snapshots, the system clock;
    /// /sys, /proc, /etc and /run read under `host` (a fixture tree in tests), the mount
    /// table read through one open file for every reader.
    public static func system(host: HostRoot = .system) -> Services {
        let mounts = ProcMountTable(host: host)
        var services = Services(
            devices: LinuxDeviceSource(host: host, mounts: mounts),
            snapshots: BtrfsSnapshotBackend(host: host, mountTable: mounts),
            clock: SystemClock(),
            output: StandardOutput(),
            isRoot: geteuid() == 0,
            stdinIsTerminal: isatty(0) == 1,
            stderrIsTerminal: isatty(2) == 1,
            partitionTables: FdiskPartitionTableReader(),
            filesystemSizer: LinuxFilesystemSizer(host: host),
            mounts: mounts,
            filesystemSpace: StatvfsSpace(),
            snapshotSchedules: SnapshotScheduleFiles(host: host)
        )
        services.holders = ProcVolumeHolders(host: host)
        services.localeIsUTF8 = LocaleCharset.isUTF8 { name in getenv(name).map { String(cString: $0) } }
        services.owners = OwnerRooms(host: host)
        services.backends.register(listingOnly: LVMThinBackend(), for: .lvmThin)
        let zfs = ZFSTool()
        services.backends.register(ZFSBackend(tool: zfs, mountTable: mounts, host: host), for: .zfs)
        services.zfsPools = ZFSPoolStatus(tool: zfs)
        return services
    }
}

extension DeletionServices {
    /// The real machine: flock on /run/lock/carve.lock (or $CARVE_LOCK_FILE), signals, syslog(3), stdin.
    public static func system() -> DeletionServices {
        DeletionServices(
            lock: FileDeletionLock(),
            catchInterrupts: { flag, onSignal in InterruptCatcher.catchInterrupts(into: flag, notify: onSignal) },
            systemLog: { SystemLog.notice($0) },
            readAnswer: { readLine(strippingNewline: true) }
        )
    }
}
