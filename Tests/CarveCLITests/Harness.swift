@testable import CarveCLI
import CarveCore
import CarveTestSupport

extension CapturedText: OutputSink {
    public func write(_ text: String) { appendOut(text) }
    public func writeError(_ text: String) { appendErr(text) }
}

/// What an in-process carve run printed and returned.
struct RunResult {
    let status: Int32
    let stdout: String
    let stderr: String
}

/// Runs carve in-process against the given fakes, as a script would run it.
func runCarve(_ arguments: [String], services: (CapturedText) -> Services) -> RunResult {
    let captured = CapturedText()
    let status = Services.$current.withValue(services(captured)) { CarveMain.run(arguments) }
    return RunResult(status: status, stdout: captured.stdout, stderr: captured.stderr)
}
