import CarveCore
import Glibc

/// Properties from the udev database (/run/udev/data), the first source lsblk asks.
///
/// A record is trusted only while udevd runs and has initialised the device:
/// once udevd stops, its records stay behind and go stale (a loop number reused
/// for another image keeps the old image's filesystem), so then this source
/// answers nothing and libblkid probing fills everything.
public struct UdevPropertySource: DevicePropertySource {
    public let name = "udev"
    public let fields = DeviceField.standard.union([.revision, .wwn, .partFlags])
    /// udevd's blkid builtin stores every result of its probe in the record.
    public let recordsWholeProbes = true
    /// Whether udevd runs, asked when the first device is described and kept for the
    /// run: a command that describes no device (snapshots, --version) never connects
    /// to udevd's socket.
    public var daemonRunning: Bool { answer.value(for: 0, isRunning) }
    private let isRunning: @Sendable () -> Bool
    private let answer = OnceCache<Int, Bool>()

    public init(daemonRunning: @escaping @autoclosure @Sendable () -> Bool = UdevDaemon.isRunning()) {
        isRunning = daemonRunning
    }

    public func properties(of device: BlockDevice, parent: BlockDevice?) throws -> DeviceProperties? {
        guard daemonRunning, let record = try UdevContext().blockDevice(named: device.name), record.isInitialized
        else { return nil }
        return UdevPropertySource.properties(from: record.property)
    }

    /// The udev keys lsblk reads, with `_ENC` values decoded and model/serial whitespace tidied.
    static func properties(from value: (String) -> String?) -> DeviceProperties {
        var found = DeviceProperties(
            fsType: value("ID_FS_TYPE"), fsVersion: value("ID_FS_VERSION"),
            uuid: (value("ID_FS_UUID_ENC") ?? value("ID_FS_UUID")).map(UdevEncoding.decode),
            label: (value("ID_FS_LABEL_ENC") ?? value("ID_FS_LABEL")).map(UdevEncoding.decode),
            partUUID: value("ID_PART_ENTRY_UUID"), partType: value("ID_PART_ENTRY_TYPE"),
            partLabel: value("ID_PART_ENTRY_NAME").map(UdevEncoding.decode),
            partNumber: value("ID_PART_ENTRY_NUMBER").flatMap { Int($0) },
            ptType: value("ID_PART_TABLE_TYPE") ?? value("ID_PART_ENTRY_SCHEME"),
            ptUUID: value("ID_PART_TABLE_UUID"),
            model: (value("ID_MODEL_ENC").map(UdevEncoding.decode) ?? value("ID_MODEL")).map(normalizedWhitespace),
            // sg3_utils' key first, as upstream lsblk reads them.
            serial: (value("SCSI_IDENT_SERIAL") ?? value("ID_SCSI_SERIAL") ?? value("ID_SERIAL_SHORT")
                ?? value("ID_SERIAL")).map(normalizedWhitespace)
        )
        found[.revision] = value("ID_REVISION")
        found[.wwn] = value("ID_WWN_WITH_EXTENSION") ?? value("ID_WWN")
        found[.partFlags] = value("ID_PART_ENTRY_FLAGS")
        return found
    }

    /// Runs of spaces squeezed to one and the ends trimmed, as lsblk shows hardware names.
    static func normalizedWhitespace(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).joined(separator: " ")
    }
}

/// Whether systemd-udevd is running, from /proc: its control socket outlives it,
/// so the socket's presence proves nothing.
public enum UdevDaemon {
    public static func isRunning(host: HostRoot = .system) -> Bool {
        let control = host.udevControl
        // Without its control socket udevd has never run here: no need to look further.
        guard Files.exists(control) else { return false }
        // A live udevd accepts a connection; a stale socket refuses it. Only root may
        // connect, so others look for the process instead.
        return acceptsConnection(control) ?? processIsRunning(host: host)
    }

    /// Whether /proc shows a live (not zombie) systemd-udevd.
    public static func processIsRunning(host: HostRoot = .system) -> Bool {
        let proc = host.processes
        guard let entries = Files.names(in: proc) else { return false }
        for pid in entries where pid.allSatisfy(\.isNumber) {
            guard let stat = Files.text("\(proc)/\(pid)/stat"),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { continue }
            let command = stat[stat.index(after: open)..<close]
            let state = stat[stat.index(after: close)...].drop { $0 == " " }.prefix(1)
            if command == "systemd-udevd" || command == "udevd", state != "Z" { return true }
        }
        return false
    }

    /// True when something listens on the unix socket, false when the connection is
    /// refused (nobody listens), nil when it cannot tell (no permission).
    static func acceptsConnection(_ path: String) -> Bool? {
        let raw = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard raw >= 0 else { return nil }
        let socket = FileDescriptor(adopting: raw, path: path)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: bytes) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket.fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if result == 0 { return true }
        return errno == ECONNREFUSED ? false : nil
    }
}
