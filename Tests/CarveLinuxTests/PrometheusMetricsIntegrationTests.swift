import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// `carve snapshots list --prometheus` on a real btrfs holding snapper (made by snapper),
/// timeshift, btrbk and plain snapshots, judged by promtool, df, snapper's listing,
/// btrfs's creation times and the fixture's own names and files; and the alert rules of
/// the man page, judged by promtool.
@Suite(.serialized, .enabled(if: Integration.enabled, "needs root and loop devices"))
struct PrometheusMetricsIntegrationTests {
    typealias Btrfs = SnapshotsListIntegrationTests.Btrfs

    static var repository: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    /// One sample: the metric's name, its labels and its value.
    struct Sample {
        var name: String
        var labels: [String: String]
        var value: String
    }

    /// The samples of an exposition, label values unescaped as the format says (\\, \", \n).
    static func samples(_ text: String) -> [Sample] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            var sample = Sample(name: "", labels: [:], value: "")
            var rest = Substring(line)
            sample.name = String(rest.prefix { $0 != "{" && $0 != " " })
            rest = rest.dropFirst(sample.name.count)
            if rest.first == "{" {
                rest = rest.dropFirst()
                while rest.first != "}" {
                    let name = String(rest.prefix { $0 != "=" })
                    rest = rest.dropFirst(name.count + 2)
                    var value = ""
                    while let character = rest.first, character != "\"" {
                        rest = rest.dropFirst()
                        guard character == "\\", let escaped = rest.first else { value.append(character); continue }
                        rest = rest.dropFirst()
                        value.append(escaped == "n" ? "\n" : escaped)
                    }
                    rest = rest.dropFirst()
                    if rest.first == "," { rest = rest.dropFirst() }
                    sample.labels[name] = value
                }
                rest = rest.dropFirst()
            }
            sample.value = String(rest.drop { $0 == " " })
            return sample
        }
    }

    /// The dates of a snapper config's snapshots (number 0 aside), as snapper lists them, in Unix seconds.
    static func snapperDates(_ config: String) throws -> [Int] {
        let csv = try Shell.check([
            "snapper", "--no-dbus", "--utc", "--iso", "--csvout", "-c", config, "list", "--columns", "number,date",
        ])
        let parser = DateFormatter()
        parser.locale = Locale(identifier: "en_US_POSIX")
        parser.timeZone = Foundation.TimeZone(identifier: "UTC")
        parser.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return try csv.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == 2, fields[0] != "0" else { return nil }
            let date = try #require(parser.date(from: String(fields[1])), "snapper's date: \(line)")
            return Int(date.timeIntervalSince1970)
        }
    }

    /// A subvolume's creation time as `btrfs subvolume show` prints it, in Unix seconds.
    static func otime(_ path: String) throws -> Int {
        let show = try Shell.check(["btrfs", "subvolume", "show", path])
        let line = try #require(show.split(separator: "\n").first { $0.contains("Creation time:") }, "\(show)")
        let text = line.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces)
        let parser = DateFormatter()
        parser.locale = Locale(identifier: "en_US_POSIX")
        parser.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        return Int(try #require(parser.date(from: text), "btrfs's creation time: \(text)").timeIntervalSince1970)
    }

    @Test func metricsPassPromtoolAndAgreeWithTheReferenceTools() throws {
        try #require(Shell.has("promtool"), "promtool (Debian package prometheus) is needed")
        let fs = try Btrfs()
        try fs.subvolume("@"); try fs.subvolume("@home"); try fs.subvolume("data")
        let config = "carveprom\(UInt32.random(in: 1000...99999))"
        try Shell.check(["snapper", "--no-dbus", "-c", config, "create-config", fs.top + "/data"])
        // The filesystem stays mounted until snapper has let go of the config.
        defer {
            withExtendedLifetime(fs) { _ = try? Shell.run(["snapper", "--no-dbus", "-c", config, "delete-config"]) }
        }
        for number in 1...3 { try Shell.check(["snapper", "--no-dbus", "-c", config, "create", "-d", "n\(number)"]) }
        try fs.snapshot("@home", "btrbk/home.20261101T1200")
        try fs.snapshot("@home", "btrbk/home.20261102T1200")
        try fs.snapshot("@", "timeshift-btrfs/snapshots/2026-11-01_12-00-01/@")
        try fs.write(
            "timeshift-btrfs/snapshots/2026-11-01_12-00-01/info.json", #"{"created":"1793534401","tags":"D"}"#)
        try fs.snapshot("@home", "snaps/home-1")
        // A source whose name the format must escape: a quote, a backslash, a newline.
        let odd = "we \"ird\\\nname"
        try fs.subvolume(odd)
        try fs.snapshot(odd, "snaps/odd-1")

        let metrics = try Shell.run([SnapshotsListIntegrationTests.carve, "snapshots", "list", fs.top, "--prometheus"])
        #expect(metrics.status == 0, "\(metrics.stderr)")
        let check = try Shell.run(["promtool", "check", "metrics"], input: metrics.stdout)
        #expect(check.status == 0, "promtool check metrics: \(check.stdout)\(check.stderr)\n\(metrics.stdout)")

        // Count and newest date by manager and source, from how the fixture was built: snapper's
        // own listing for its dates, the btrbk names (local time), timeshift's info.json,
        // and btrfs's creation time (otime) for the plain snapshots.
        let snapperDates = try Self.snapperDates(config)
        #expect(snapperDates.count == 3, "snapper lists the 3 snapshots it made")
        let btrbkNewest = try #require(
            Calendar.current.date(from: DateComponents(year: 2026, month: 11, day: 2, hour: 12, minute: 0)))
        let expected: [String: (count: Int, newest: Int)] = [
            "snapper|\(fs.top)/data": (3, snapperDates.max() ?? -1),
            "btrbk|\(fs.top)/@home": (2, Int(btrbkNewest.timeIntervalSince1970)),
            "timeshift|\(fs.top)/@": (1, 1_793_534_401),
            "plain|\(fs.top)/@home": (1, try Self.otime(fs.top + "/snaps/home-1")),
            // Labels carry names as tables show them: \xHH for a backslash or a control character.
            "plain|\(fs.top)/we \"ird\\x5c\\x0aname": (1, try Self.otime(fs.top + "/snaps/odd-1")),
        ]
        let samples = Self.samples(metrics.stdout)
        func byGroup(_ name: String) -> [String: String] {
            Dictionary(
                samples.filter { $0.name == name }.map {
                    ("\($0.labels["manager"] ?? "")|\($0.labels["source"] ?? "")", $0.value)
                }, uniquingKeysWith: { a, _ in a })
        }
        let oddGroup = "plain|\(fs.top)/we \"ird\\x5c\\x0aname"
        #expect(
            byGroup("carve_snapshots").mapValues { Int($0) ?? -1 } == expected.mapValues(\.count),
            "\(metrics.stdout)")
        #expect(
            byGroup("carve_snapshot_newest_timestamp_seconds").mapValues { Int($0) ?? -1 }
                == expected.mapValues(\.newest), "\(metrics.stdout)")
        #expect(expected[oddGroup]?.count == 1 && byGroup("carve_snapshots")[oddGroup] == "1", "\(metrics.stdout)")
        #expect(samples.allSatisfy { $0.labels["filesystem"].map { $0 == fs.top } ?? true })
        // The exact scan knows every size: one figure a group, none of them unknown.
        #expect(byGroup("carve_snapshot_exclusive_bytes").count == expected.count)
        // Size and available as df shows them.
        let df = try UntilAvailableIntegrationTests.df(fs.top)
        #expect(samples.first { $0.name == "carve_filesystem_size_bytes" }?.value == "\(df.size)")
        let available = Int64(samples.first { $0.name == "carve_filesystem_available_bytes" }?.value ?? "") ?? -1
        #expect(abs(available - df.available) <= 1 << 20, "carve \(available), df \(df.available)")
        #expect(metrics.stdout.contains(#"source="\#(fs.top)/we \"ird\\x5c\\x0aname"}"#), "\(metrics.stdout)")
    }

    /// The alert rules of carve-snapshots-list(8), as a user copies them into a rule file.
    @Test func theDocumentedAlertRulesPassPromtool() throws {
        try #require(Shell.has("promtool"), "promtool (Debian package prometheus) is needed")
        let page = try String(contentsOfFile: Self.repository + "/man/carve-snapshots-list.8", encoding: .utf8)
        let lines = page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: "groups:"), "no rule file in the man page")
        let end = try #require(lines[start...].firstIndex(of: ".Ed"))
        let rules = lines[start..<end].map(DocumentedExample.unescapeRoff).joined(separator: "\n") + "\n"
        #expect(
            rules.contains("carve_snapshot_newest_timestamp_seconds") && rules.contains("carve_filesystem_size_bytes"))
        let directory = try Integration.makeScratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try rules.write(toFile: directory + "/carve.rules.yml", atomically: true, encoding: .utf8)
        let check = try Shell.run(["promtool", "check", "rules", directory + "/carve.rules.yml"])
        #expect(check.status == 0, "promtool check rules: \(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains("SUCCESS: 2 rules found"), "\(check.stdout)")
    }
}
