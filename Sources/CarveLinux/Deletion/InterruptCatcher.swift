import CarveCore
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGINT and SIGTERM into a cancellation request, so that a deletion run
/// stops between two snapshots and reports what it did. A second signal ends
/// carve at once, as if it had not been caught.
public enum InterruptCatcher {
    private static let sources = SourceBox()

    public static func catchInterrupts(into flag: CancellationFlag, notify: @escaping @Sendable () -> Void) {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                if flag.isCancelled {
                    signal(signalNumber, SIG_DFL)
                    raise(signalNumber)
                    return
                }
                flag.cancel()
                notify()
            }
            source.resume()
            sources.keep(source)
        }
    }
}

/// Keeps the signal sources alive for the life of the process.
private final class SourceBox: @unchecked Sendable {
    private let lock = NSLock()
    private var sources: [any DispatchSourceSignal] = []
    func keep(_ source: any DispatchSourceSignal) { lock.lock(); sources.append(source); lock.unlock() }
}
