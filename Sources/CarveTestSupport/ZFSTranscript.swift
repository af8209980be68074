import CarveCore
import CarveLinux
import Foundation
import Synchronization

/// A test double of `zfs` and `zpool` that replays a transcript: what each command
/// printed, as written down from the real tool (zfs-fuse, captured here) or from
/// OpenZFS's source (`Tests/Fixtures/zfs/README.md` names each one's source). A command
/// with several entries gets them in turn (the last one repeats), so a listing after a
/// destroy can differ; a command the transcript lacks fails loudly (status 127) and is
/// recorded, so a test sees every call carve made.
public final class ZFSTranscript: Sendable {
    public struct Entry: Sendable {
        public var arguments: [String]
        public var run: ZFSTool.Run
    }

    private let state: Mutex<(entries: [Entry], calls: [[String]], unknown: [[String]])>
    public let source: String

    public init(source: String, entries: [Entry]) {
        self.source = source
        state = Mutex((entries, [], []))
    }

    /// The transcript `Tests/Fixtures/zfs/NAME.json`.
    public convenience init(named name: String, file: String = #filePath) throws {
        let path = URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/zfs/\(name).json").path
        try self.init(path: path)
    }

    public convenience init(path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let document = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        let runs = document["runs"] as? [[String: Any]] ?? []
        self.init(
            source: document["source"] as? String ?? "",
            entries: runs.map { run in
                Entry(
                    arguments: run["arguments"] as? [String] ?? [],
                    run: ZFSTool.Run(
                        status: Int32(run["status"] as? Int ?? 0), stdout: run["stdout"] as? String ?? "",
                        stderr: run["stderr"] as? String ?? ""))
            })
    }

    /// Adds what `arguments` prints, after the entries it has for it.
    public func add(_ arguments: [String], status: Int32 = 0, stdout: String = "", stderr: String = "") {
        state.withLock {
            $0.entries.append(Entry(arguments: arguments, run: .init(status: status, stdout: stdout, stderr: stderr)))
        }
    }

    /// The runner to hand `ZFSTool`.
    public var runner: ZFSTool.Runner {
        { [self] arguments in
            state.withLock { state in
                state.calls.append(arguments)
                guard let index = state.entries.firstIndex(where: { $0.arguments == arguments }) else {
                    state.unknown.append(arguments)
                    return ZFSTool.Run(status: 127, stdout: "", stderr: "no transcript for \(arguments)")
                }
                let entry = state.entries[index]
                // Consumed, unless it is the last one of its command.
                if state.entries[(index + 1)...].contains(where: { $0.arguments == arguments }) {
                    state.entries.remove(at: index)
                }
                return entry.run
            }
        }
    }

    /// Every command carve ran, in order.
    public var calls: [[String]] { state.withLock { $0.calls } }

    /// The commands carve ran that the transcript has no entry for.
    public var unknownCalls: [[String]] { state.withLock { $0.unknown } }
}
