import ArgumentParser
import CarveCore
import CarveLinux

/// The options that shape what a report prints, for scripts and cron: `--quiet`
/// (errors only on stderr) and `--compact` (each JSON document on one line).
struct ReportOptions: ParsableArguments {
    @Flag(
        name: .shortAndLong,
        help:
            "Print only errors on stderr (no notes, warnings, progress or audit lines); delete, thin and check also leave out their text report. JSON, when asked for, is still printed."
    )
    var quiet = false

    @Flag(help: "Print JSON on one line, as jq -c does, so that a log of runs is JSON Lines (implies --json).")
    var compact = false

    @Flag(
        name: .shortAndLong,
        help:
            "Also say how sizes were found: what the exact scan read, what it took from its cache and how long it took."
    )
    var verbose = false

    @Flag(
        name: .customLong("no-cache"),
        help:
            "Read every snapshot's tree for exact sizes, neither using nor updating the cache in /var/cache/carve (as CARVE_CACHE=off)."
    )
    var noCache = false

    /// Whether the report is JSON: `--json`, or `--compact`, which implies it.
    func json(_ jsonFlag: Bool) -> Bool { jsonFlag || compact }

    /// `services` with their output shaped by these options.
    func shaped(_ services: Services) -> Services {
        var services = services
        services.exactScan.verbose = services.exactScan.verbose || verbose
        if noCache { services.exactScan.useCache = false }
        if compact { services.output = CompactJSONOutput(services.output) }
        if quiet {
            services.output = QuietOutput(base: services.output)
            // Nothing is drawn where nothing may be said.
            services.stderrIsTerminal = false
        }
        return services
    }

    /// Runs `body` with the current services shaped by these options.
    func apply<T>(_ body: () throws -> T) throws -> T {
        try Services.$current.withValue(shaped(Services.current), operation: body)
    }
}

/// stderr reduced to what `--quiet` keeps: errors, prompts, interruptions.
struct QuietOutput: OutputSink {
    let base: any OutputSink
    func write(_ text: String) { base.write(text) }
    func writeError(_ text: String) {}
    func writeEssential(_ text: String) { base.writeEssential(text) }
}

/// stdout with the blanks between JSON tokens taken out and one newline after each
/// document: carve's pretty JSON as `jq -c` prints it. Strings are copied untouched
/// (carve escapes newlines inside them), so the state is only "inside a string or not".
final class CompactJSONOutput: OutputSink, @unchecked Sendable {
    private let base: any OutputSink
    private let lock = Lock()
    private var inString = false
    private var escaped = false
    private var depth = 0

    init(_ base: any OutputSink) { self.base = base }

    func writeError(_ text: String) { base.writeError(text) }
    func writeEssential(_ text: String) { base.writeEssential(text) }

    func write(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 { compact(byte, into: &out) }
        if !out.isEmpty { base.write(String(decoding: out, as: UTF8.self)) }
    }

    private func compact(_ byte: UInt8, into out: inout [UInt8]) {
        if inString {
            out.append(byte)
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
            }
            return
        }
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"): return
        case UInt8(ascii: "\""): inString = true
        case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
        default: break
        }
        out.append(byte)
        if depth == 0 && (byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")) { out.append(UInt8(ascii: "\n")) }
    }
}
