import CarveCore
#if canImport(Glibc)
import Glibc
#endif

/// `path` with every symlink, `.` and `..` resolved by realpath(3), its bytes kept
/// exactly; nil when it does not exist. One call, where Foundation's
/// `resolvingSymlinksInPath` walks component by component and loses bytes that are
/// not UTF-8.
func realPath(_ path: String) -> String? {
    ByteText.withCString(path) { cPath in
        guard let resolved = realpath(cPath, nil) else { return nil }
        defer { free(resolved) }
        return ByteText.decode(cString: resolved)
    }
}
