import CarveCore
import CarveLinux

/// A one-line progress indicator for extent scans on stderr, drawn only when stderr
/// is a terminal and at most ten times a second.
final class ScanProgressLine: @unchecked Sendable {
    private let output: any OutputSink
    private let lock = Lock()
    private var lastDrawn = Date.distantPast
    private var drawn = false
    private let started = Date()

    private init(output: any OutputSink) { self.output = output }

    /// Runs `body` with a scan progress handler installed when stderr is a terminal.
    /// The command's `ExactScanOptions` are set around it too. On a terminal, Ctrl-C
    /// stops the scan between two trees (exit 130), the line cleared, nothing written.
    static func around<T>(_ services: Services, _ body: () throws -> T) rethrows -> T {
        try ExactScanOptions.$current.withValue(services.exactScan) {
            guard services.stderrIsTerminal else { return try body() }
            let line = ScanProgressLine(output: services.output)
            defer { line.finish() }
            let flag = CancellationFlag()
            DeletionServices.current.catchInterrupts(flag) {}
            return try ExtentScanObserver.$cancellation.withValue(flag) {
                try ExtentScanObserver.$current.withValue({ line.draw($0) }, operation: body)
            }
        }
    }

    func draw(_ progress: ExtentScanProgress) {
        lock.lock(); defer { lock.unlock() }
        let now = Date()
        guard now.timeIntervalSince(lastDrawn) >= 0.1 else { return }
        lastDrawn = now
        drawn = true
        output.writeError(
            "\r\u{1B}[Kreading extents: \(progress.subvolumesDone)/\(progress.subvolumesTotal) subvolumes, "
                + "\(ByteSize.format(progress.bytesRead)) read"
                + Self.remaining(progress, elapsed: now.timeIntervalSince(started)))
    }

    /// ", about 12s left": the trees left at the pace of those read, once there is a pace.
    static func remaining(_ progress: ExtentScanProgress, elapsed: Double) -> String {
        guard progress.subvolumesDone > 0, elapsed >= 1, progress.subvolumesTotal > progress.subvolumesDone else {
            return ""
        }
        let left =
            elapsed * Double(progress.subvolumesTotal - progress.subvolumesDone) / Double(progress.subvolumesDone)
        let seconds = Int(left.rounded(.up))
        return seconds < 120 ? ", about \(seconds)s left" : ", about \(seconds / 60) min left"
    }

    func finish() {
        lock.lock(); defer { lock.unlock() }
        if drawn { output.writeError("\r\u{1B}[K") }
    }
}

/// What the listed snapshots free together, with `--sizes exact`: data exact, metadata
/// an estimate, over every filesystem listed.
struct ExactTotals {
    var reclaim = SetReclaim(data: 0, metadataAtLeast: 0, metadataAtMost: 0, inline: 0)
    var scans: [ExtentScanReport] = []

    /// Adds the reclaim of the snapshots at `positions` in `listing`. By position: a copy
    /// of ten thousand selected subvolumes was a third of the listing's peak memory.
    mutating func add(_ listing: VolumeListing, at positions: [Int]) {
        guard let exact = listing.exact else { return }
        // Through the buffer: the array's subscript copied every (fat) subvolume it was asked of.
        let set = exact.reclaim(
            deleting: listing.subvolumes.withUnsafeBufferPointer { subvolumes in
                positions.compactMap { subvolumes[$0].isSnapshot ? subvolumes[$0].id : nil }
            })
        reclaim.data += set.data
        reclaim.metadataAtLeast += set.metadataAtLeast
        reclaim.metadataAtMost += set.metadataAtMost
        reclaim.inline += set.inline
        scans.append(exact.scan)
    }

    var isEmpty: Bool { scans.isEmpty }

    /// The summary's clause: what deleting all the listed snapshots together frees.
    func clause(bytes: Bool) -> String {
        func shown(_ value: UInt64) -> String { bytes ? "\(value) bytes" : ByteSize.format(value) }
        // Tree blocks freed lie anywhere between a root block per snapshot and their
        // whole trees: a range that wide says nothing, so the text leaves it to the JSON.
        return "deleting them all frees \(shown(reclaim.data)) of data (exact)"
    }

    /// `"exact": {...}` next to `"snapshots"` in the JSON output.
    var json: JSONValue {
        .object([
            ("reclaim", .uint(reclaim.data)),
            ("reclaim_data_exact", .bool(true)),
            ("metadata_estimate_min", .uint(reclaim.metadataAtLeast)),
            ("metadata_estimate_max", .uint(reclaim.metadataAtMost)),
            ("inline_bytes", .uint(reclaim.inline)),
            (
                "note",
                .string(
                    "exclusive, referenced and reclaim count data extents on disk exactly; tree blocks (metadata, inline data) are not included and are estimated apart"
                )
            ),
            (
                "scan",
                .object([
                    ("subvolumes", .uint(UInt64(scans.reduce(0) { $0 + $1.subvolumes }))),
                    ("items", .uint(UInt64(scans.reduce(0) { $0 + $1.items }))),
                    ("file_extent_items", .uint(UInt64(scans.reduce(0) { $0 + $1.fileExtentItems }))),
                    ("cached_subvolumes", .uint(UInt64(scans.reduce(0) { $0 + $1.cachedSubvolumes }))),
                    ("bytes_read", .uint(scans.reduce(0) { $0 + $1.bytesRead })),
                    ("seconds", .double(scans.reduce(0) { $0 + $1.seconds })),
                ])
            ),
        ])
    }
}

extension ExactTotals {
    /// `,\n   "exact": {...}` for a JSON document written piece by piece at the top level.
    var jsonMember: String {
        let lines = json.rendered().split(separator: "\n", omittingEmptySubsequences: false)
        return ",\n   \"exact\": "
            + lines.enumerated().map { $0.offset == 0 ? String($0.element) : "   " + $0.element }
            .joined(separator: "\n")
    }
}
