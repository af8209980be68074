import CarveTestSupport
import Foundation
import Testing

/// `--options-file` as root on real files: a policy another user owns, one in a
/// group-writable directory and a symlink to a file in a user's directory are refused
/// (exit 64, the file, owner and mode named, nothing deleted); a root-only policy, also
/// through a root-owned symlink, is read. Unprivileged, the file is read as before.
@Suite(.serialized, .integration(needing: "btrfs", "setpriv"))
struct PolicyFileIntegrationTests {
    static let rule = "a policy file and every directory above it must be root's and writable by root alone"

    /// A disk with two snapshots and a root-only directory `policy/` beside its image.
    func withPolicyDisk(_ body: (DeletionDisk, String) throws -> Void) throws {
        try withDeletionDisk { disk in
            try disk.snapshot("a")
            try disk.snapshot("b")
            let directory = disk.disk.directory + "/policy"
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
            try body(disk, directory)
        }
    }

    func write(_ path: String, _ disk: DeletionDisk, mode: Int = 0o644) throws {
        try Data("--filesystem \(disk.mountpoint)\n--all\n".utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    @Test func aRootOnlyPolicyIsReadAndARootOwnedLinkToOneToo() throws {
        try withPolicyDisk { disk, directory in
            try write(directory + "/all.conf", disk)
            try FileManager.default.createSymbolicLink(
                atPath: directory + "/link.conf", withDestinationPath: "all.conf")
            for file in ["all.conf", "link.conf"] {
                let result = try disk.carve([
                    "snapshots", "delete", "--options-file", directory + "/" + file, "--dry-run",
                ])
                #expect(result.status == 0, "\(file): \(result.stderr)")
                #expect(result.stdout.contains("snaps/a") && result.stdout.contains("snaps/b"), "\(result.stdout)")
            }
        }
    }

    @Test func aPolicyAnotherUserOwnsIsRefused() throws {
        try withPolicyDisk { disk, directory in
            let file = directory + "/user.conf"
            try write(file, disk)
            try Shell.check(["chown", "1000:1000", file])
            try expectRefused(file, disk, saying: "it is owned by uid 1000 (mode 0644)")
        }
    }

    @Test func aPolicyInAGroupWritableDirectoryIsRefused() throws {
        try withPolicyDisk { disk, directory in
            try write(directory + "/all.conf", disk)
            try Shell.check(["chmod", "0775", directory])
            try expectRefused(
                directory + "/all.conf", disk,
                saying: "\(directory) is writable by its group (owner uid 0, mode 0775)")
        }
    }

    /// The link is root's, in a root-only directory; where it points is not.
    @Test func aSymlinkToAFileInAUsersDirectoryIsRefused() throws {
        try withPolicyDisk { disk, directory in
            let user = disk.disk.directory + "/user"
            try FileManager.default.createDirectory(atPath: user, withIntermediateDirectories: false)
            try write(user + "/all.conf", disk)
            try Shell.check(["chown", "1000:1000", user])
            try FileManager.default.createSymbolicLink(
                atPath: directory + "/link.conf", withDestinationPath: user + "/all.conf")
            try expectRefused(
                directory + "/link.conf", disk, saying: "\(user), reached through a symlink, is owned by uid 1000")
        }
    }

    /// As uid 1000, a policy of its own is read as before: its bad line is reported
    /// with its place, which only a read file can give.
    @Test func anUnprivilegedRunReadsItsOwnPolicy() throws {
        let directory = try Integration.makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let carve = try CarveBinary.copy(into: directory)
        let file = directory + "/mine.conf"
        try Data("--kep-daily 7\n".utf8).write(to: URL(fileURLWithPath: file))
        try Shell.check(["chown", "1000:1000", file])
        let result = try Shell.run([
            "setpriv", "--reuid=1000", "--regid=1000", "--clear-groups", carve, "snapshots", "delete",
            "--options-file", file, "--dry-run",
        ])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("carve: \(file):1: Unknown option '--kep-daily'"), "\(result.stderr)")
    }

    func expectRefused(_ file: String, _ disk: DeletionDisk, saying reason: String) throws {
        let before = try disk.subvolumes()
        for command in [["snapshots", "delete"], ["snapshots", "thin", disk.mountpoint, "--free", "1G"]] {
            let result = try disk.carve(command + ["--options-file", file, "--yes"])
            #expect(result.status == 64, "\(command): \(result.stderr)")
            #expect(result.stderr.hasPrefix("carve: \(file): not read as root: \(reason)"), "\(result.stderr)")
            #expect(result.stderr.hasSuffix(Self.rule + "\n") && result.stderr.split(separator: "\n").count == 1)
            #expect(result.stdout.isEmpty)
        }
        #expect(try disk.subvolumes() == before)
        #expect(before == ["data", "snaps/a", "snaps/b"])
    }
}
