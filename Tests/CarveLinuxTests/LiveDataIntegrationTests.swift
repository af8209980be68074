import CarveTestSupport
import Foundation
import Testing

/// Live data is never pruned: container engines' subvolumes (a real podman among
/// them), a clone written to after it was taken, and snapshots that running processes
/// hold survive every bulk deletion; checked with btrfs-progs, podman and fuser.
@Suite(.serialized, .enabled(if: Integration.enabled, "needs root and loop devices"))
struct LiveDataIntegrationTests {
    static let engines = [
        "srv/podman/storage/btrfs/subvolumes", "var/lib/docker/btrfs/subvolumes/4f2a",
        "home/user/.local/share/containers/storage/btrfs/subvolumes/9c1d", "var/lib/machines/web",
        "var/lib/incus/storage-pools/default/containers/c1",
    ]

    /// A read-only plain snapshot and an untouched writable one (whose file is read,
    /// which moves its atime only): the only disposable ones.
    func makeDisposable(_ disk: DeletionDisk) throws {
        try disk.snapshot("ro")
        try disk.snapshot(at: "snaps/untouched")
        try Shell.check(["btrfs", "filesystem", "sync", disk.mountpoint])
        _ = try Shell.check(["cat", disk.mountpoint + "/snaps/untouched/file"])
        try Shell.check(["btrfs", "filesystem", "sync", disk.mountpoint])
    }

    /// The "done when", on one loop btrfs: a real podman beside the other engines'
    /// layouts (made by hand, `makeEngineLayouts`), a clone in use, and two read-only plain
    /// snapshots that running processes hold (an open file, a working directory).
    @Test(.enabled(if: Shell.has("podman"), "podman is not installed (Scripts/bootstrap installs it)"))
    func bulkDeletionsTakeOnlyDisposableSnapshotsAndPodmanStillWorks() throws {
        try withDeletionDisk(size: "2G") { disk in
            try Data("x\n".utf8).write(to: URL(fileURLWithPath: disk.mountpoint + "/data/file"))
            let podman = try PodmanOnDisk(disk)
            defer { podman.remove() }
            try disk.makeEngineLayouts()
            try disk.snapshot(at: "snaps/clone")
            try Shell.check(["btrfs", "filesystem", "sync", disk.mountpoint])
            try Data("work\n".utf8).write(to: URL(fileURLWithPath: disk.mountpoint + "/snaps/clone/new"))
            try disk.snapshot("open")
            try disk.snapshot("cwd")
            let reader = try Self.sleeper(stdin: disk.mountpoint + "/snaps/open/file")
            let worker = try Self.sleeper(directory: disk.mountpoint + "/snaps/cwd")
            defer { for process in [reader, worker] { Self.stop(process) } }
            let held = [
                "snaps/open: in use by \(reader.processIdentifier) (sleep)",
                "snaps/cwd: in use by \(worker.processIdentifier) (sleep)",
            ]
            let before = try disk.subvolumes()
            #expect(before.filter { $0.hasPrefix("srv/podman/storage/btrfs/subvolumes/") }.count >= 2, "\(before)")
            for command in [
                ["snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--yes"],
                ["snapshots", "delete", "--filesystem", disk.mountpoint, "--older-than", "0d", "--yes"],
                ["snapshots", "thin", disk.mountpoint, "--free", "900M", "--best-effort", "--yes"],
            ] {
                try makeDisposable(disk)
                let result = try disk.carve(command)
                #expect(result.status == 0, "\(command): \(result.stderr)")
                #expect(try disk.subvolumes() == before, "\(command)")
                #expect(
                    result.stderr.contains("owned by podman: delete it with podman")
                        && result.stderr.contains("written to since it was taken: a clone in use")
                        && held.allSatisfy(result.stderr.contains),
                    "\(command): \(result.stderr)")
            }
            let listed = try disk.carve(["snapshots", "list", disk.mountpoint, "--sizes", "none", "--json"])
            let json = try DeletionDisk.json(listed)
            let managers = Dictionary(
                ((json["snapshots"] as? [[String: Any]]) ?? []).compactMap { row -> (String, String)? in
                    guard let path = row["path"] as? String, let manager = row["manager"] as? String else { return nil }
                    return (String(path.dropFirst(disk.mountpoint.count + 1)), manager)
                }, uniquingKeysWith: { first, _ in first })
            for (prefix, engine) in zip(Self.engines, ["podman", "docker", "podman", "machines", "incus"]) {
                let paths = managers.keys.filter { $0.hasPrefix(prefix) }
                #expect(!paths.isEmpty && paths.allSatisfy { managers[$0] == engine }, "\(prefix): \(managers)")
            }
            #expect(managers["var/lib/machines/.#web.clone"] == "machines")
            #expect(managers["var/lib/incus/storage-pools/default/containers-snapshots/c1/snap0"] == "incus")
            #expect(managers["snaps/clone"] == "plain")
            // Named, an engine's subvolume is refused beside a deletable snapshot (exit 4),
            // and a clone in use goes.
            try makeDisposable(disk)
            let named = try disk.carve([
                "snapshots", "delete", disk.mountpoint + "/var/lib/machines/web", disk.mountpoint + "/snaps/clone",
                disk.mountpoint + "/snaps/ro", "--yes",
            ])
            #expect(named.status == 4, "\(named.stderr)")
            #expect(named.stderr.contains("owned by machines: delete it with machinectl"), "\(named.stderr)")
            #expect(try disk.subvolumes() == (before.filter { $0 != "snaps/clone" } + ["snaps/untouched"]).sorted())
            // Once the processes are gone, the next run deletes what they held, and only that.
            for process in [reader, worker] { Self.stop(process) }
            let after = try disk.carve(["snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--yes"])
            #expect(after.status == 0, "\(after.stderr)")
            #expect(
                try disk.subvolumes() == before.filter { !["snaps/clone", "snaps/open", "snaps/cwd"].contains($0) })
            try podman.podman(["container", "inspect", podman.container])
            try podman.podman(["rm", podman.container])
        }
    }

    @Test func aSnapshotAProcessHoldsIsKeptUntilTheProcessExits() throws {
        try withDeletionDisk { disk in
            try Data("x\n".utf8).write(to: URL(fileURLWithPath: disk.mountpoint + "/data/file"))
            try disk.snapshot("open")
            try disk.snapshot("cwd")
            try disk.snapshot("free")
            let reader = try Self.sleeper(stdin: disk.mountpoint + "/snaps/open/file")
            let worker = try Self.sleeper(directory: disk.mountpoint + "/snaps/cwd")
            defer { for process in [reader, worker] { Self.stop(process) } }
            // The reference: fuser -m names the same processes.
            let fuser = try Shell.run(["fuser", "-m", disk.mountpoint + "/snaps/open", disk.mountpoint + "/snaps/cwd"])
            #expect(
                fuser.stdout.contains("\(reader.processIdentifier)")
                    && fuser.stdout.contains("\(worker.processIdentifier)"))
            for command in [
                ["snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--yes"],
                ["snapshots", "thin", disk.mountpoint, "--free", "900M", "--best-effort", "--yes"],
            ] {
                let result = try disk.carve(command)
                #expect(result.status == 0, "\(command): \(result.stderr)")
                #expect(
                    result.stderr.contains("snaps/open: in use by \(reader.processIdentifier) (sleep)")
                        && result.stderr.contains("snaps/cwd: in use by \(worker.processIdentifier) (sleep)"),
                    "\(result.stderr)")
                #expect(try disk.subvolumes() == ["data", "snaps/cwd", "snaps/open"])
                try disk.snapshot("free")
            }
            let named = try disk.carve(["snapshots", "delete", disk.mountpoint + "/snaps/open", "--yes"])
            #expect(named.status == 1, "\(named.stderr)")
            #expect((named.stdout + named.stderr).contains("in use by \(reader.processIdentifier) (sleep)"))
            for process in [reader, worker] { Self.stop(process) }
            let after = try disk.carve(["snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--yes"])
            #expect(after.status == 0, "\(after.stderr)")
            #expect(try disk.subvolumes() == ["data"])
        }
    }

    /// A file mapped and its descriptor closed: only `/proc/PID/maps` tells (the kernel
    /// pads its path column, which the reader must skip).
    @Test func aMemoryMapAloneHoldsASnapshot() throws {
        try withDeletionDisk { disk in
            try Data("mapped\n".utf8).write(to: URL(fileURLWithPath: disk.mountpoint + "/data/file"))
            try disk.snapshot("mapped")
            let mapper = try Self.mapper(of: disk.mountpoint + "/snaps/mapped/file")
            defer { Self.stop(mapper) }
            let maps = Integration.kernelText("/proc/\(mapper.processIdentifier)/maps")
            #expect(maps.contains(disk.mountpoint + "/snaps/mapped/file"))
            let result = try disk.carve(["snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--yes"])
            #expect(result.status == 0, "\(result.stderr)")
            let said = result.stdout + result.stderr
            #expect(said.contains("snaps/mapped: in use by \(mapper.processIdentifier) (python3)"), "\(said)")
            #expect(try disk.subvolumes() == ["data", "snaps/mapped"])
        }
    }

    @Test func ignoreInUseDeletesAHeldSnapshot() throws {
        try withDeletionDisk { disk in
            try disk.snapshot("held")
            let worker = try Self.sleeper(directory: disk.mountpoint + "/snaps/held")
            defer { Self.stop(worker) }
            let result = try disk.carve([
                "snapshots", "delete", disk.mountpoint + "/snaps/held", "--yes", "--ignore-in-use",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try disk.subvolumes() == ["data"])
        }
    }

    @Test func readingAWritableSnapshotLeavesItDisposableWritingMakesItAClone() throws {
        try withDeletionDisk { disk in
            try Data("x\n".utf8).write(to: URL(fileURLWithPath: disk.mountpoint + "/data/file"))
            for name in ["read", "written", "renamed", "chmod"] { try disk.snapshot(at: "snaps/" + name) }
            try Shell.check(["btrfs", "filesystem", "sync", disk.mountpoint])
            sleep(1)
            let mnt = disk.mountpoint + "/snaps/"
            _ = try Shell.check(["cat", mnt + "read/file"])
            try Shell.check(["sh", "-c", "echo more >> " + mnt + "written/file"])
            try Shell.check(["mv", mnt + "renamed/file", mnt + "renamed/moved"])
            try Shell.check(["chmod", "600", mnt + "chmod/file"])
            try Shell.check(["btrfs", "filesystem", "sync", disk.mountpoint])
            let plan = try disk.carve(["snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--dry-run"])
            #expect(plan.status == 0 && plan.stdout.contains("would delete 1 snapshot"), "\(plan.stdout)\(plan.stderr)")
            for name in ["written", "renamed", "chmod"] {
                #expect(plan.stdout.contains("snaps/\(name): written to since it was taken"), "\(plan.stdout)")
            }
            #expect(!plan.stdout.contains("snaps/read:"), "\(plan.stdout)")
        }
    }

    /// SIGKILL: the sleeper inherits the test process's blocked signals, SIGTERM among them.
    static func stop(_ process: Process) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    static func sleeper(stdin path: String? = nil, directory: String? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["600"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let input = path.flatMap { FileHandle(forReadingAtPath: $0) }
        if let input { process.standardInput = input }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        try process.run()
        // The sleeper's copy is the one that holds the file; the test's would hold it too.
        try input?.close()
        return process
    }

    /// A process (behind `prefix`, e.g. `setpriv` to another user) that maps the file at
    /// `path`, opened for it as its stdin, and closes that descriptor, so that only its
    /// /proc/PID/maps shows the file. libc's mmap, through ctypes: Python's own `mmap`
    /// keeps a duplicate of the descriptor, which the check of open files finds first.
    static func mapper(of path: String, behind prefix: [String] = []) throws -> Process {
        let script = """
            import ctypes, os, time
            libc = ctypes.CDLL(None, use_errno=True)
            libc.mmap.restype = ctypes.c_void_p
            libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
            if libc.mmap(None, 4096, 1, 1, 0, 0) in (None, 2**64 - 1): raise SystemExit(ctypes.get_errno())
            os.close(0)
            print('ready', flush=True)
            time.sleep(600)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = prefix + ["/usr/bin/python3", "-c", script]
        let input = try #require(FileHandle(forReadingAtPath: path))
        let ready = Pipe()
        (process.standardInput, process.standardOutput) = (input, ready)
        process.standardError = FileHandle.nullDevice
        try process.run()
        try input.close()
        // Its first bytes come once the file is mapped and the descriptor closed.
        #expect(String(decoding: ready.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("ready"))
        return process
    }
}
