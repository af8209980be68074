@testable import CarveCLI
import CarveCore
@testable import CarveLinux
import CarveTestSupport
import Foundation
import Testing

/// carve runs as root: the tools it runs come from the system directories by absolute
/// path, never from PATH, and a backend is asked only when its filesystems are wanted.
@Suite struct SystemToolTests {
    @Test func toolsAreFoundInTheSystemDirectoriesOnly() throws {
        #expect(
            ChildProcess.systemTool("sh").map { ChildProcess.systemDirectories.contains(PathText.parent(of: $0)) }
                == true)
        #expect(ChildProcess.systemTool("carve-no-such-tool") == nil)
        #expect(ChildProcess.systemTool("../bin/sh") == nil, "a name, not a path")
        // Whatever PATH says: env finds nothing there, the system tool is run all the same.
        let run = try ChildProcess.runTool(["sh", "-c", "echo ok"], environment: ["PATH": "/nonexistent"])
        #expect(String(decoding: run.stdout, as: UTF8.self) == "ok\n")
        #expect(try ChildProcess.run(["sh", "-c", "echo ok"], environment: ["PATH": "/nonexistent"]).status == 127)
        #expect(throws: RuntimeError.self) { try ChildProcess.runTool(["carve-no-such-tool"]) }
    }

    /// A fake tool that records each run in `ran` beside it, in a fresh directory.
    static func fakeTool(_ name: String) throws -> (directory: String, ran: String) {
        let directory = try Integration.makeScratchDirectory()
        let ran = directory + "/ran"
        try "#!/bin/sh\necho \"$0 $*\" >> '\(ran)'\necho ran\n".write(
            toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory + "/" + name)
        return (directory, ran)
    }

    /// A tool in a directory of PATH only (as a hostile PATH would hold) is not run, though
    /// the PATH carve hands its child holds it.
    @Test func aToolOnlyOnPathIsNotRun() throws {
        let fake = try Self.fakeTool("carve-path-only-tool")
        defer { try? FileManager.default.removeItem(atPath: fake.directory) }
        #expect(ChildProcess.systemTool("carve-path-only-tool") == nil, "the system directories lack it")
        let viaEnv = try ChildProcess.run(["carve-path-only-tool"], environment: ["PATH": fake.directory])
        #expect(String(decoding: viaEnv.stdout, as: UTF8.self) == "ran\n", "the tool is there for env")
        try FileManager.default.removeItem(atPath: fake.ran)
        #expect(throws: RuntimeError.self) {
            try ChildProcess.runTool(["carve-path-only-tool"], environment: ["PATH": fake.directory])
        }
        #expect(!FileManager.default.fileExists(atPath: fake.ran), "the fake ran")
    }

    /// The carve binary, with a fake `lvs` first on its own PATH and none in the system
    /// directories (hidden in a mount namespace where lvm2 is installed), lists every
    /// filesystem (which asks LVM) without running the fake. zfs and zpool are hidden
    /// too: an installed zfs-fuse with no daemon makes a listing of everything fail.
    @Test(.integration(needing: "unshare"))
    func carveRunsNoToolFromItsPath() throws {
        let fake = try Self.fakeTool("lvs")
        defer { try? FileManager.default.removeItem(atPath: fake.directory) }
        let hide = ChildProcess.systemDirectories.flatMap { directory in
            ["lvs", "zfs", "zpool"].map {
                "if [ -e \(directory)/\($0) ]; then mount --bind /dev/null \(directory)/\($0); fi"
            }
        }
        let script = (hide + ["command -v lvs", "exec \"$0\" snapshots list --sizes none"]).joined(separator: "; ")
        let path = ([fake.directory] + ChildProcess.systemDirectories).joined(separator: ":")
        let run = try Shell.run(
            ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, CarveBinary.path],
            environment: ["PATH": path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix(fake.directory + "/lvs\n"), "the fake is first on PATH: \(run.stdout)")
        #expect(!FileManager.default.fileExists(atPath: fake.ran), "carve ran the fake lvs: \(run.stdout)")
    }

    /// `lvs` runs only when the listing is of everything or names a pool.
    @Test func aBtrfsListingRunsNoLvs() throws {
        final class Count: @unchecked Sendable {
            let lock = Lock()
            var runs = 0
            func add() { lock.lock(); runs += 1; lock.unlock() }
        }
        let count = Count()
        let sink = CapturingSink()
        let source = SnapshotFixtures.subvolume(256, path: "home")
        let backend = FakeSnapshotBackend([
            .init(
                filesystem: SnapshotFixtures.filesystem(),
                subvolumes: [source, SnapshotFixtures.snapshot(300, path: "snaps/a", of: source, daysAgo: 3)])
        ])
        // This machine's clock, mounts and tables, as these tests had them before the default became NoMachine's.
        var services = Services(
            devices: FakeDeviceSource(), snapshots: backend, clock: SystemClock(), output: sink, isRoot: true,
            partitionTables: FdiskPartitionTableReader(), filesystemSizer: LinuxFilesystemSizer(),
            mounts: ProcMountTable(),
            filesystemSpace: StatvfsSpace())
        services.backends.register(
            listingOnly: LVMThinBackend(report: { _ in
                count.add()
                return nil
            }), for: .lvmThin)
        func run(_ arguments: [String]) -> Int32 {
            Services.$current.withValue(services) { CarveMain.run(arguments) }
        }
        #expect(run(["snapshots", "list", "/mnt", "--sizes", "none"]) == 0, "\(sink.text.stderr)")
        #expect(
            run(["snapshots", "delete", "/mnt/snaps/a", "--dry-run", "--sizes", "none"]) == 0, "\(sink.text.stderr)")
        #expect(count.runs == 0)
        #expect(run(["snapshots", "list", "--sizes", "none"]) == 0, "\(sink.text.stderr)")
        #expect(count.runs > 0, "every filesystem listed: LVM's too")
    }
}
