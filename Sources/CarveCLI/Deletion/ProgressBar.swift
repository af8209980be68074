import CarveCore

/// A one-line progress bar on stderr, drawn only when stderr is a terminal; other
/// lines written through it (the audit trail) clear the bar first and redraw it after.
final class ProgressBar {
    private let output: any OutputSink
    private let enabled: Bool
    private let total: Int
    private var done = 0
    private let width = 30

    init(output: any OutputSink, enabled: Bool, total: Int) {
        self.output = output; self.enabled = enabled && total > 1; self.total = total
    }

    func advance(to count: Int) {
        done = count
        draw()
    }

    /// Writes a whole line to stderr without tearing the bar; an essential line (a
    /// snapshot that could not be deleted) is kept under --quiet.
    func line(_ text: String, essential: Bool = false) {
        if enabled { output.writeError("\r\u{1B}[K") }
        if essential { output.writeEssential(text + "\n") } else { output.writeError(text + "\n") }
        draw()
    }

    func finish() {
        if enabled { output.writeError("\r\u{1B}[K") }
    }

    private func draw() {
        guard enabled, total > 0 else { return }
        // A later batch of thin --until-available --wait counts from 1 again: never past the end.
        let filled = min(done, total) * width / total
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        output.writeError("\r[\(bar)] \(done)/\(total) deleted")
    }
}
