import CarveTestSupport
import Foundation
import Testing

/// `snapshots list --metrics-file FILE` on a real btrfs: the file is replaced as a whole
/// (mode 0644, no temporary left), never written through a symlink planted in its
/// directory; and the shipped carve-metrics.service's ExecStart, run as written into a
/// test directory, is served by a running node_exporter and accepted by promtool.
@Suite(.serialized, .integration(needing: "btrfs", "promtool", "prometheus-node-exporter", "curl"))
struct MetricsFileIntegrationTests {
    typealias Btrfs = SnapshotsListIntegrationTests.Btrfs
    /// The textfile directory the unit names, replaced by the test's.
    static let textfiles = "/var/lib/prometheus/node-exporter"

    /// A btrfs with two plain snapshots of one source, and a directory for the metrics.
    func withMetricsDisk(_ body: (Btrfs, String) throws -> Void) throws {
        let fs = try Btrfs()
        try fs.subvolume("data")
        try fs.snapshot("data", "snaps/one")
        try fs.snapshot("data", "snaps/two")
        let directory = fs.disk.directory + "/textfiles"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        try body(fs, directory)
    }

    func list(_ fs: Btrfs, _ file: String) throws -> Shell.Result {
        try Shell.run(
            [CarveBinary.path, "snapshots", "list", fs.top, "--metrics-file", file, "--quiet"],
            environment: ["CARVE_CACHE": "off"])
    }

    /// Symlinks planted where the old unit wrote (`carve.prom.tmp`) and at FILE itself:
    /// what they point to is left alone; FILE becomes the metrics, a regular file.
    @Test func aPlantedSymlinkIsNeverWrittenThrough() throws {
        try withMetricsDisk { fs, directory in
            let victim = fs.disk.directory + "/victim"
            try Data("precious\n".utf8).write(to: URL(fileURLWithPath: victim))
            let file = directory + "/carve.prom"
            try FileManager.default.createSymbolicLink(
                atPath: directory + "/carve.prom.tmp", withDestinationPath: victim)
            try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: victim)
            let result = try list(fs, file)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.isEmpty && result.stderr.isEmpty)
            #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            #expect(attributes[.type] as? FileAttributeType == .typeRegular)
            #expect(attributes[.posixPermissions] as? Int == 0o644)
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(
                text.contains("carve_snapshots{filesystem=\"\(fs.top)\",manager=\"plain\",source=\"\(fs.top)/data\"} 2")
            )
            // Only the planted link and the metrics: no temporary left.
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == [
                    "carve.prom", "carve.prom.tmp",
                ])
        }
    }

    /// Where the rename cannot go (FILE is a directory), the run fails and leaves no temporary.
    @Test func aFailedWriteLeavesNoTemporary() throws {
        try withMetricsDisk { fs, directory in
            try FileManager.default.createDirectory(
                atPath: directory + "/carve.prom", withIntermediateDirectories: false)
            let result = try list(fs, directory + "/carve.prom")
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("carve: cannot write \(directory)/carve.prom: "), "\(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["carve.prom"])
            let missing = try list(fs, fs.disk.directory + "/none/carve.prom")
            #expect(missing.status == 1 && missing.stderr.contains("no such file or directory"), "\(missing.stderr)")
        }
    }

    /// The unit's ExecStart as shipped, the textfile directory and the binary put in.
    static func unitCommand(directory: String) throws -> [String] {
        let unit = try String(
            contentsOfFile: PrometheusMetricsIntegrationTests.repository + "/Scripts/debian/carve-metrics.service",
            encoding: .utf8)
        let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        let words = line.dropFirst("ExecStart=".count).split(separator: " ").map(String.init)
        #expect(!words.contains { $0.contains("'") || $0.contains(">") }, "a shell in ExecStart: \(line)")
        return words.map {
            $0.replacingOccurrences(of: Self.textfiles, with: directory)
                .replacingOccurrences(of: "/usr/sbin/carve", with: CarveBinary.path)
        }
    }

    @Test func nodeExporterServesWhatTheMetricsUnitWrote() throws {
        try withMetricsDisk { fs, directory in
            let command = try Self.unitCommand(directory: directory)
            #expect(command.contains(directory + "/carve.prom"), "\(command)")
            let written = try Shell.run(command, environment: ["CARVE_CACHE": "off"])
            #expect(written.status == 0, "\(command): \(written.stderr)")
            let check = try Shell.run(
                ["promtool", "check", "metrics"],
                input: try String(
                    contentsOfFile: directory + "/carve.prom", encoding: .utf8))
            #expect(check.status == 0, "promtool check metrics: \(check.stdout)\(check.stderr)")
            let port = try NodeExporter.freePort()
            let exporter = try NodeExporter(directory: directory, port: port)
            defer { exporter.stop() }
            let served = try exporter.scrape()
            let expected = "carve_snapshots{filesystem=\"\(fs.top)\",manager=\"plain\",source=\"\(fs.top)/data\"} 2"
            #expect(served.contains(expected), "\(served.split(separator: "\n").filter { $0.hasPrefix("carve_") })")
            // node_exporter read the file without error.
            #expect(served.contains("node_textfile_scrape_error 0"), "\(served)")
        }
    }
}

/// prometheus-node-exporter with only its textfile collector, on 127.0.0.1, stopped by PID.
final class NodeExporter {
    let process = Process()
    let port: Int

    init(directory: String, port: Int) throws {
        self.port = port
        process.executableURL = URL(fileURLWithPath: "/usr/bin/prometheus-node-exporter")
        process.arguments = [
            "--collector.disable-defaults", "--collector.textfile", "--collector.textfile.directory=\(directory)",
            "--web.listen-address=127.0.0.1:\(port)",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// /metrics, once it answers (within 10 s).
    func scrape() throws -> String {
        for _ in 0..<100 {
            let result = try Shell.run(["curl", "-sf", "http://127.0.0.1:\(port)/metrics"])
            if result.status == 0 { return result.stdout }
            guard process.isRunning else { break }
            usleep(100_000)
        }
        throw RuntimeFailure("node_exporter on 127.0.0.1:\(port) did not answer")
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }

    /// A port nothing listens on now (the kernel's pick for port 0).
    static func freePort() throws -> Int {
        let script = "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"
        return try #require(
            Int(try Shell.check(["python3", "-c", script]).trimmingCharacters(in: .whitespacesAndNewlines)))
    }
}
