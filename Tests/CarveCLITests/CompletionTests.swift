import ArgumentParser
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import CarveCLI
import CarveTestSupport
import CarveLinux

/// Completion scripts for bash, zsh and fish: generated from the commands,
/// accepted by each shell, and completing what a root user types.
@Suite struct CompletionTests {
    static func script(_ shell: String) throws -> String {
        let result = CommandTree.carve(["--generate-completion-script", shell])
        guard result.status == 0, !result.stdout.isEmpty else {
            throw CompletionScriptFailed(shell: shell, stderr: result.stderr)
        }
        return result.stdout
    }

    /// Writes the script for `shell` and runs `shell -n` on it.
    func checkSyntax(_ shell: String) throws {
        let scratch = try Integration.makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let file = scratch + "/carve." + shell
        let text = try Self.script(shell)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let check = try Shell.run([shell, "-n", file])
        #expect(check.status == 0, "\(shell) -n rejects the completion script: \(check.stderr)")
        for (path, _) in CommandTree.commands() {
            let found = text.contains(path.last!)
            #expect(found, "the \(shell) completion script does not know `\(path.joined(separator: " "))`")
        }
    }

    @Test(.enabled(if: Shell.has("bash"), "bash is not installed"))
    func bashScriptIsValid() throws { try checkSyntax("bash") }

    @Test(.enabled(if: Shell.has("zsh"), "zsh is not installed (Scripts/bootstrap installs it)"))
    func zshScriptIsValid() throws { try checkSyntax("zsh") }

    @Test(.enabled(if: Shell.has("fish"), "fish is not installed (Scripts/bootstrap installs it)"))
    func fishScriptIsValid() throws { try checkSyntax("fish") }

    /// What bash offers for the words typed so far, the last one being completed.
    static func bashCompletions(_ words: [String], environment: [String: String] = [:]) throws -> [String] {
        let scratch = try Integration.makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try script("bash").write(toFile: scratch + "/carve.bash", atomically: true, encoding: .utf8)
        let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let program = """
            shopt -s extglob
            source '\(scratch)/carve.bash'
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
            COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
            # As `complete -F` calls it: command, current word, previous word.
            _carve carve "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try Shell.run(["bash", "-c", program], environment: environment)
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test(.enabled(if: Shell.has("bash"), "bash is not installed"))
    func bashCompletesSubcommandsAndOptions() throws {
        #expect(try Self.bashCompletions(["carve", "sn"]) == ["snapshots"])
        #expect(Set(try Self.bashCompletions(["carve", "snapshots", ""])).isSuperset(of: ["list", "delete", "thin"]))
        #expect(try Self.bashCompletions(["carve", "check", "/dev/null", "--shrink-t"]) == ["--shrink-to"])
    }

    @Test(.enabled(if: Shell.has("bash") && Shell.has("lsblk"), "bash or lsblk is not installed"))
    func bashCompletesBlockDevicesForDeviceArguments() throws {
        // Loop devices of tests running beside this one come and go: compare the others.
        let stable = try Shell.check(["lsblk", "-rno", "PATH"]).split(separator: "\n").map(String.init)
            .filter { !$0.hasPrefix("/dev/loop") }
        try #require(!stable.isEmpty, "lsblk lists no devices but loop devices here")
        for command in [["carve", "devices"], ["carve", "check"]] {
            let offered = try Self.bashCompletions(command + ["/dev/"])
            let all = Set(offered).isSuperset(of: stable) && offered.allSatisfy { $0.hasPrefix("/dev/") }
            #expect(all, "\(command.joined(separator: " ")) /dev/<TAB> offered \(offered), lsblk lists \(stable)")
        }
    }

    /// Snapshot arguments complete through carve itself (`carve ---completion`),
    /// so the built binary must be on PATH, as it is once installed.
    @Test(.enabled(if: Shell.has("bash"), "bash is not installed"))
    func bashCompletesSnapshotPathsThroughCarve() throws {
        let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
        try #require(
            FileManager.default.isExecutableFile(atPath: binaries + "/carve"), "no carve binary in \(binaries)")
        let path = binaries + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let offered = try Self.bashCompletions(["carve", "snapshots", "delete", "/et"], environment: ["PATH": path])
        #expect(offered == ["/etc/"])
    }

    @Test func snapshotCandidatesComeFromSnapperConfigsAndDirectories() throws {
        let root = try Integration.makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let files = FileManager.default
        try files.createDirectory(atPath: root + "/etc/snapper/configs", withIntermediateDirectories: true)
        try "SUBVOLUME=\"/\"\nFSTYPE=\"btrfs\"\n".write(
            toFile: root + "/etc/snapper/configs/root", atomically: true, encoding: .utf8)
        try "SUBVOLUME=\"/home\"\n".write(toFile: root + "/etc/snapper/configs/home", atomically: true, encoding: .utf8)
        // No SUBVOLUME line: a broken config is left out, not an error.
        try "FSTYPE=\"btrfs\"\n".write(toFile: root + "/etc/snapper/configs/broken", atomically: true, encoding: .utf8)
        // A FIFO and an empty file where configs are: skipped, without hanging the TAB.
        #expect(mkfifo(root + "/etc/snapper/configs/fifo", 0o600) == 0)
        try "".write(toFile: root + "/etc/snapper/configs/empty", atomically: true, encoding: .utf8)
        for number in ["1", "12", "2"] {
            try files.createDirectory(
                atPath: root + "/.snapshots/\(number)/snapshot", withIntermediateDirectories: true)
        }
        try files.createDirectory(atPath: root + "/.snapshots/not-a-number", withIntermediateDirectories: true)
        try files.createDirectory(atPath: root + "/home/.snapshots/7/snapshot", withIntermediateDirectories: true)
        try files.createDirectory(atPath: root + "/srv", withIntermediateDirectories: true)
        try "".write(toFile: root + "/file", atomically: true, encoding: .utf8)

        let completion = SnapshotCompletion(host: HostRoot(root))
        #expect(completion.candidates(for: "root:") == ["root:1", "root:2", "root:12"])
        #expect(completion.candidates(for: "ho") == ["home:7"])
        #expect(
            completion.candidates(for: "/home/.snapshots/") == ["/home/.snapshots/7/snapshot", "/home/.snapshots/7/"])
        #expect(completion.candidates(for: "/s") == ["/srv/"])
        #expect(completion.candidates(for: "/.snapshots/1").first == "/.snapshots/1/snapshot")
        #expect(SnapshotCompletion(host: HostRoot(root + "/missing")).candidates(for: "") == [])
    }
}

struct CompletionScriptFailed: Error, CustomStringConvertible {
    let shell: String, stderr: String
    var description: String { "carve --generate-completion-script \(shell) failed: \(stderr)" }
}
