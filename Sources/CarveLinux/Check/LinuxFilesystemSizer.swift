import CarveCore
import Glibc

/// How one filesystem's figures are read on this machine: its Linux room, beside its
/// Core room (`FilesystemRoom`), registered in `LinuxFilesystemRooms.all`.
protocol LinuxFilesystemRoom: Sendable {
    /// blkid TYPE values it reads.
    var types: [String] { get }
    /// The figures of the filesystem on `device`, mounted at `mountpoint` when it is.
    func figures(of device: BlockDevice, mountpoint: String?, host: HostRoot) throws -> FilesystemFigures
}

enum LinuxFilesystemRooms {
    static let all: [any LinuxFilesystemRoom] = [BtrfsSizing(), ExtSizing(), NTFSSizing(), SwapSizing()]
}

/// Finds filesystem figures on this machine through each filesystem's Linux room; a
/// type without one gets "cannot tell". Read-only: every tool is run in its report-only mode.
public struct LinuxFilesystemSizer: FilesystemSizer {
    /// Where /proc/swaps is.
    public var host: HostRoot
    public init(host: HostRoot = .system) { self.host = host }

    public func figures(of device: BlockDevice, mountpoint: String?) throws -> FilesystemFigures {
        let type = device.properties.fsType
        if let type, let room = LinuxFilesystemRooms.all.first(where: { $0.types.contains(type) }) {
            return try room.figures(of: device, mountpoint: mountpoint, host: host)
        }
        return FilesystemFigures(
            fsType: type, used: mountpoint.flatMap { try? StatvfsSpace.read($0).used }, source: "nothing",
            note: "carve cannot tell the minimum size of \(type ?? "an unknown filesystem")"
        )
    }

    static func roundUpToMiB(_ bytes: UInt64) -> UInt64 { ((bytes + (1 << 20) - 1) >> 20) << 20 }
}

/// Runs a report-only tool in the C locale (its output is parsed) and returns its stdout.
enum ToolRun {
    static func output(_ arguments: [String]) throws -> String {
        let run = try ChildProcess.runTool(arguments, environment: ["LC_ALL": "C"])
        guard run.status == 0 else {
            let message = String(decoding: run.stderr, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
            // As root, a refusal (a sandbox, a security module) is a failure with the tool's words.
            if geteuid() != 0,
                message.containsText("Permission denied") || message.containsText("Operation not permitted")
            {
                throw NeedsRootError("running \(arguments.joined(separator: " "))")
            }
            throw RuntimeError("\(arguments.joined(separator: " ")) exited \(run.status): \(message)")
        }
        return String(decoding: run.stdout, as: UTF8.self)
    }
}
