import CarveTestSupport
import Foundation
import Testing

/// The in-use check as the timers run it: carve under exactly the capability set of
/// the shipped `carve-prune@` and `carve-thin@` units (read from the unit files, applied
/// with setpriv), against a root process with every capability and a process of
/// another user, each holding a snapshot. Without CAP_SYS_PTRACE carve cannot see into
/// them, and keeps every snapshot they might hold.
@Suite(.serialized, .enabled(if: Integration.enabled, "needs root and loop devices"))
struct UnitCapabilityIntegrationTests {
    /// Three read-only snapshots: one a full-capability root process works in, one whose
    /// file a process of `nobody` holds open, and one nobody holds.
    struct Held {
        let disk: DeletionDisk
        let root: Process
        let other: Process

        init(_ disk: DeletionDisk) throws {
            self.disk = disk
            try Data("x\n".utf8).write(to: URL(fileURLWithPath: disk.mountpoint + "/data/file"))
            for name in ["root-held", "user-held", "free"] { try disk.snapshot(name) }
            root = try Self.holder([], directory: disk.mountpoint + "/snaps/root-held")
            other = try Self.holder(
                Self.asNobody,
                stdin: disk.mountpoint + "/snaps/user-held/file")
        }

        /// Runs what follows as `nobody`, with no groups.
        static let asNobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]

        func stop() { for process in [root, other] { LiveDataIntegrationTests.stop(process) } }

        var reasons: [String] {
            [
                "snaps/root-held: in use by \(root.processIdentifier) (sleep)",
                "snaps/user-held: in use by \(other.processIdentifier) (sleep)",
            ]
        }

        /// `sleep 600` behind `prefix`, holding a file as its stdin or a directory as its cwd.
        static func holder(_ prefix: [String], stdin path: String? = nil, directory: String? = nil) throws -> Process {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = prefix + ["sleep", "600"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let input = path.flatMap { FileHandle(forReadingAtPath: $0) }
            if let input { process.standardInput = input }
            if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
            try process.run()
            try input?.close()
            // setpriv has exec'd sleep once the process's command is sleep.
            for _ in 0..<200 {
                if (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/comm", encoding: .utf8))
                    == "sleep\n"
                {
                    break
                }
                usleep(10_000)
            }
            return process
        }
    }

    /// carve under `sandbox`; nil: root at a shell, with every capability.
    func carve(_ disk: DeletionDisk, _ sandbox: UnitSandbox?, _ arguments: [String]) throws -> Shell.Result {
        try Shell.run(
            (sandbox?.prefix ?? []) + [CarveBinary.path] + arguments, environment: ["CARVE_LOCK_FILE": disk.lockFile])
    }

    /// Each unit, and root at a shell ("").
    @Test(arguments: ["carve-prune@.service", "carve-thin@.service", ""])
    func theUnitsCapabilitiesSeeWhatRootAndOtherUsersHold(unit: String) throws {
        let sandbox = unit.isEmpty ? nil : try UnitSandbox(unit: unit)
        #expect(sandbox?.boundingSet.contains("sys_ptrace") ?? true, "\(unit) must let carve read /proc")
        try withDeletionDisk { disk in
            let held = try Held(disk)
            defer { held.stop() }
            // A map alone, of another user's process: only its /proc/PID/maps tells.
            try disk.snapshot("user-mapped")
            let mapper = try LiveDataIntegrationTests.mapper(
                of: disk.mountpoint + "/snaps/user-mapped/file",
                behind: Held.asNobody)
            defer { LiveDataIntegrationTests.stop(mapper) }
            let before = try disk.subvolumes()
            let command =
                !unit.hasPrefix("carve-thin")
                ? ["snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--yes"]
                : ["snapshots", "thin", disk.mountpoint, "--free", "900M", "--best-effort", "--yes"]
            let result = try carve(disk, sandbox, command)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(held.reasons.allSatisfy(result.stderr.contains), "\(result.stderr)")
            #expect(
                result.stderr.contains("snaps/user-mapped: in use by \(mapper.processIdentifier) (python3)"),
                "\(result.stderr)")
            #expect(try disk.subvolumes() == before.filter { $0 != "snaps/free" })
            // Named, a held snapshot is refused just the same.
            let named = try carve(
                disk, sandbox, ["snapshots", "delete", disk.mountpoint + "/snaps/user-held", "--yes"])
            #expect(named.status == 1, "\(named.stderr)")
            #expect(
                (named.stdout + named.stderr).contains("in use by \(held.other.processIdentifier) (sleep)"),
                "\(named.stdout)\(named.stderr)")
            #expect(try disk.subvolumes() == before.filter { $0 != "snaps/free" })
        }
    }

    @Test func withoutPtraceEveryCandidateIsKeptAndTheRunSaysWhy() throws {
        let sandbox = try UnitSandbox(unit: "carve-prune@.service").without("sys_ptrace")
        try withDeletionDisk { disk in
            let held = try Held(disk)
            defer { held.stop() }
            // A process whose mount namespace does not show the filesystem cannot hold it.
            let elsewhere = try Held.holder([
                "unshare", "--mount", "--propagation", "private", "sh", "-c",
                "umount \(disk.mountpoint) && exec sleep 600",
            ])
            defer { LiveDataIntegrationTests.stop(elsewhere) }
            let before = try disk.subvolumes()
            let bulk = try carve(
                disk, sandbox, ["snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--yes", "--json"])
            #expect(bulk.status == 1, "\(bulk.stderr)")
            #expect(try disk.subvolumes() == before, "nothing deleted")
            #expect(bulk.stderr.contains("processes hold (PIDs "), "\(bulk.stderr)")
            #expect(bulk.stderr.contains("no CAP_SYS_PTRACE): nothing deleted that they might hold"), "\(bulk.stderr)")
            let json = try DeletionDisk.json(bulk)
            let unseen = try #require((json["unseen_processes"] as? [[String: Any]])?.first, "\(json)")
            #expect(unseen["cause"] as? String == "no CAP_SYS_PTRACE")
            let pids = Set(((unseen["processes"] as? [[String: Any]]) ?? []).compactMap { $0["pid"] as? Int })
            #expect(pids.contains(Int(held.root.processIdentifier)) && pids.contains(Int(held.other.processIdentifier)))
            #expect(!pids.contains(Int(elsewhere.processIdentifier)), "narrowed by its mount namespace")
            #expect(DeletionDisk.ids(json["protected"]).count == 3)
            // Named: the same, one line per snapshot saying why.
            let named = try carve(disk, sandbox, ["snapshots", "delete", disk.mountpoint + "/snaps/free", "--yes"])
            #expect(named.status == 1, "\(named.stderr)")
            #expect(named.stdout.contains("carve cannot see into (no CAP_SYS_PTRACE)"), "\(named.stdout)")
            // thin finds nothing it may delete, and says why.
            let thin = try carve(
                disk, sandbox, ["snapshots", "thin", disk.mountpoint, "--free", "900M", "--best-effort", "--yes"])
            #expect(thin.status == 1, "\(thin.stderr)")
            #expect(thin.stderr.contains("no CAP_SYS_PTRACE"), "\(thin.stderr)")
            // --ignore-in-use is the way out, for whoever decides so.
            let ignoring = try carve(
                disk, sandbox, ["snapshots", "delete", disk.mountpoint + "/snaps/free", "--yes", "--ignore-in-use"])
            #expect(ignoring.status == 0, "\(ignoring.stderr)")
            #expect(try disk.subvolumes() == before.filter { $0 != "snaps/free" })
        }
    }
}
