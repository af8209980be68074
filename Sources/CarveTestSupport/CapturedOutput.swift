import Foundation

/// Collects what a command writes, for in-process CLI tests. Conforms to
/// CarveCLI's OutputSink in the CLI test target (this target does not import the CLI).
public final class CapturedText: @unchecked Sendable {
    private let lock = NSLock()
    private var outText = ""
    private var errText = ""
    public init() {}
    public func appendOut(_ text: String) { lock.lock(); outText += text; lock.unlock() }
    public func appendErr(_ text: String) { lock.lock(); errText += text; lock.unlock() }
    public var stdout: String { lock.lock(); defer { lock.unlock() }; return outText }
    public var stderr: String { lock.lock(); defer { lock.unlock() }; return errText }
}
