import CarveCore
import Glibc

/// Turns SIGINT and SIGTERM into a cancellation request, so that a deletion run
/// stops between two snapshots and reports what it did. A second signal ends
/// carve at once, as if it had not been caught.
///
/// The handler only writes the signal number to a pipe (all a handler may safely
/// do); a thread of its own reads it and does the rest.
public enum InterruptCatcher {
    /// The flag and notice of the latest run: a process that runs several deletions
    /// (the in-process tests) has one catcher, handing each signal to the current run.
    public static func catchInterrupts(into flag: CancellationFlag, notify: @escaping @Sendable () -> Void) {
        SignalThread.shared?.hand(to: Registration(flag: flag, notify: notify))
    }
}

private struct Registration: Sendable {
    let flag: CancellationFlag
    let notify: @Sendable () -> Void
}

/// Written once, before the handler is installed; the handler only reads it.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

private final class SignalThread: @unchecked Sendable {
    static let shared = SignalThread()

    private let lock = Lock()
    private var registration: Registration?
    private let readEnd: Int32

    private init?() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        readEnd = ends[0]
        signalPipeWriteEnd = ends[1]
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { _ in
                SignalThread.shared?.run()
                return nil
            }, nil)
        guard started == 0 else { return nil }
        pthread_detach(thread)
        for signalNumber in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signalNumber in
                let saved = errno
                var byte = UInt8(truncatingIfNeeded: signalNumber)
                _ = write(signalPipeWriteEnd, &byte, 1)
                errno = saved
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signalNumber, &action, nil)
        }
    }

    func hand(to registration: Registration) {
        lock.withLock { self.registration = registration }
    }

    private func run() {
        // A parent may hand its blocked signals down (the test runner's libdispatch
        // blocks SIGINT): unblocked here, they are delivered to this thread at least.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        var byte: UInt8 = 0
        while true {
            let got = read(readEnd, &byte, 1)
            if got < 0 && errno == EINTR { continue }
            guard got == 1 else { return }
            let signalNumber = Int32(byte)
            guard let current = lock.withLock({ registration }) else { continue }
            if current.flag.isCancelled {
                signal(signalNumber, SIG_DFL)
                raise(signalNumber)
                continue
            }
            current.flag.cancel()
            current.notify()
        }
    }
}
