import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// syslog(3) for the audit trail of deletions (`--syslog`): ident "carve", facility
/// LOG_USER, priority notice.
public enum SystemLog {
    private static let opened: Void = openlog("carve", LOG_PID, LOG_USER)

    public static func notice(_ message: String) {
        _ = opened
        withVaList([message]) { vsyslog(LOG_NOTICE, "%s", $0) }
    }
}
