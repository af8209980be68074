import Foundation

/// Whether integration tests (root, loop devices, real filesystems) can run here.
public enum Integration {
    /// nil when they can run; otherwise the reason, printed by the skipped test.
    public static var skipReason: String? {
        if geteuid() != 0 { return "integration tests need root (loop devices, mounts)" }
        if !FileManager.default.fileExists(atPath: "/dev/loop-control") {
            return "no /dev/loop-control: this kernel or container has no loop devices"
        }
        return nil
    }

    /// True when integration tests can run.
    public static var enabled: Bool { skipReason == nil }

    /// nil when integration tests needing `tools` can run; otherwise everything that is
    /// missing, each named (`Scripts/test` under CI fails on a skip and prints this).
    public static func skipReason(needing tools: [String]) -> String? {
        let missing =
            [skipReason].compactMap { $0 }
            + tools.filter { !Shell.has($0) }.map { "\($0) is not installed (Scripts/bootstrap installs it)" }
        return missing.isEmpty ? nil : missing.joined(separator: "; ")
    }

    /// A /proc or /sys file read to its end: such files say they are empty, and
    /// `String(contentsOfFile:)` then reads one page (4,053 bytes of a 10,748-byte maps).
    public static func kernelText(_ path: String) -> String {
        guard let file = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? file.close() }
        return String(decoding: (try? file.readToEnd()) ?? Data(), as: UTF8.self)
    }

    /// A fresh directory under /tmp that every fixture of one test lives in.
    /// Scripts/test sweeps `/tmp/carve-test-*` after the run, so a crashed test leaks nothing.
    public static func makeScratchDirectory() throws -> String {
        var template = Array("/tmp/carve-test-XXXXXX".utf8CString)
        guard let path = mkdtemp(&template) else { throw POSIXError(.EIO) }
        return String(cString: path)
    }

    /// A scratch directory holding `files` (path relative to it → content) and
    /// `links` (link → target, relative targets staying inside), as a fixture of
    /// the host's /sys, /proc, /etc and /run.
    public static func makeTree(_ files: [String: String], links: [String: String] = [:]) throws -> String {
        let root = try makeScratchDirectory()
        func parent(of path: String) throws {
            let url = URL(fileURLWithPath: root + "/" + path).deletingLastPathComponent()
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        for (path, content) in files {
            try parent(of: path)
            try Data(content.utf8).write(to: URL(fileURLWithPath: root + "/" + path))
        }
        for (link, target) in links {
            try parent(of: link)
            try FileManager.default.createSymbolicLink(atPath: root + "/" + link, withDestinationPath: target)
        }
        return root
    }
}
