#if canImport(Glibc)
import Glibc
#endif

/// syslog(3) for the audit trail of deletions (`--syslog`): ident "carve", facility
/// LOG_USER, priority notice.
public enum SystemLog {
    private static let opened: Void = openlog("carve", LOG_PID, LOG_USER)

    public static func notice(_ message: String) {
        _ = opened
        message.withCString { text in withVaList([text]) { vsyslog(LOG_NOTICE, "%s", $0) } }
    }
}
