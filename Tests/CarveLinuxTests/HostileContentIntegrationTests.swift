import CarveTestSupport
import Foundation
import Testing

/// Hostile names and files on a real btrfs: names print unambiguously (escaped in
/// tables, exact in JSON), a symlink never carries carve onto another filesystem,
/// and a huge, endless or blocking info.xml neither hangs carve nor fills memory.
@Suite(.serialized, .integration())
struct HostileContentIntegrationTests {
    /// Names and how the table shows them: control characters and the backslash as \xNN.
    static let names: [(String, String)] = [
        ("with space", "with space"), ("new\nline", "new\\x0aline"), ("-leading", "-leading"),
        ("--yes", "--yes"), ("tab\tquote\"back\\slash", "tab\\x09quote\"back\\x5cslash"), ("é日本", "é日本"),
    ]

    @Test func namesAreEscapedInTablesAndExactInJSON() throws {
        try withDeletionDisk { disk in
            for (name, _) in Self.names { try disk.snapshot(name) }
            let deep = String(repeating: String(repeating: "d", count: 200) + "/", count: 19)
            try FileManager.default.createDirectory(
                atPath: disk.mountpoint + "/snaps/" + deep, withIntermediateDirectories: true)
            try disk.snapshot(deep + "deep")
            // Not UTF-8, and the same text once each such byte is U+FFFD: only a shell can
            // hand these bytes to btrfs.
            try Shell.check([
                "sh", "-c",
                """
                btrfs subvolume snapshot -r "$0/data" "$0/snaps/bad$(printf '\\377\\376')utf" &&
                btrfs subvolume snapshot -r "$0/data" "$0/snaps/bad$(printf '\\376\\377')utf"
                """, disk.mountpoint,
            ])
            let table = try disk.carve(["snapshots", "list", disk.mountpoint, "--sizes", "none", "--output", "ID,PATH"])
            #expect(table.status == 0, "\(table.stderr)")
            let lines = table.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(lines.count == Self.names.count + 4, "one line per snapshot plus the header: \(table.stdout)")
            #expect(
                lines.contains { $0.hasSuffix("/snaps/bad\\xff\\xfeutf") }
                    && lines.contains { $0.hasSuffix("/snaps/bad\\xfe\\xffutf") })
            for (_, shown) in Self.names {
                #expect(
                    lines.contains { $0.hasSuffix("/snaps/" + shown) || $0.contains("/snaps/" + shown + " ") },
                    "\(shown)")
            }
            #expect(lines.contains { $0.contains(deep + "deep") })
            let json = try DeletionDisk.json(
                disk.carve(["snapshots", "list", disk.mountpoint, "--sizes", "none", "--json"]))
            let paths = Set(
                ((json["snapshots"] as? [[String: Any]]) ?? []).compactMap { $0["subvolume_path"] as? String })
            for (name, _) in Self.names {
                #expect(paths.contains("snaps/" + name), "exact in JSON: \(name.debugDescription)")
            }
            #expect(paths.contains("snaps/" + deep + "deep"))
            // Invalid UTF-8 cannot appear in JSON text: each such byte is U+FFFD there, and
            // subvolume_path_base64 holds the bytes btrfs-progs prints.
            #expect(paths.contains("snaps/bad\u{FFFD}\u{FFFD}utf"))
            let exact = Set(
                ((json["snapshots"] as? [[String: Any]]) ?? []).compactMap { $0["subvolume_path_base64"] as? String })
            #expect(
                exact == Set(try Self.referencePaths(disk, containing: "bad").map { Data($0).base64EncodedString() }))
            #expect(exact.count == 2)
            // Named by its exact path (argv bytes), exactly that one goes.
            let byPath = try Shell.run(
                [
                    "sh", "-c",
                    "exec \"$1\" snapshots delete --yes --sizes none \"$0/snaps/bad$(printf '\\377\\376')utf\"",
                    disk.mountpoint, CarveBinary.path,
                ], environment: ["CARVE_LOCK_FILE": disk.lockFile])
            #expect(byPath.status == 0, "\(byPath.stderr)")
            #expect(
                byPath.stderr.contains("carve: deleted snapshot \(disk.mountpoint)/snaps/bad\\xff\\xfeutf"),
                "\(byPath.stderr)")
            #expect(
                try Self.referencePaths(disk, containing: "bad") == [
                    Array("snaps/bad".utf8) + [0xFE, 0xFF] + Array("utf".utf8)
                ])
            // The other odd name is deleted by selection, exactly that one, and nothing else.
            let deleted = try disk.carve([
                "snapshots", "delete", "--filesystem", disk.mountpoint, "--match", "*bad*", "--yes", "--sizes", "none",
            ])
            #expect(deleted.status == 0, "\(deleted.stderr)")
            #expect(try disk.subvolumes().count == Self.names.count + 2)
            let all = try disk.carve([
                "snapshots", "delete", "--filesystem", disk.mountpoint, "--all", "--yes", "--sizes", "none",
            ])
            #expect(all.status == 0, "\(all.stderr)")
            #expect(try disk.subvolumes() == ["data"])
        }
    }

    @Test func aMountpointThatIsNotUTF8IsNamedAndShownExactly() throws {
        try withDeletionDisk { disk in
            try disk.snapshot("one")
            // /proc/self/mountinfo passes such bytes through unescaped.
            let odd = Array((disk.disk.directory + "/m").utf8) + [0xFF]
            try Shell.check([
                "sh", "-c", "mkdir \"$0/m$(printf '\\377')\" && mount -o subvol=data \"$1\" \"$0/m$(printf '\\377')\"",
                disk.disk.directory, disk.disk.device,
            ])
            defer { _ = try? Shell.run(["sh", "-c", "umount \"$0/m$(printf '\\377')\"", disk.disk.directory]) }
            let listed = try Shell.run([
                "sh", "-c",
                "exec \"$1\" snapshots list \"$0/m$(printf '\\377')\" --sizes none --all-subvolumes --output PATH,MOUNTPOINTS",
                disk.disk.directory, CarveBinary.path,
            ])
            #expect(listed.status == 0, "\(listed.stderr)")
            let rows = listed.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
            let escaped = disk.disk.directory + "/m\\xff"
            // `data` is named by its place under the top level, its own mount is its MOUNTPOINTS.
            #expect(
                rows.contains([disk.mountpoint + "/data", escaped]) && rows.contains([disk.mountpoint + "/snaps/one"]),
                "\(listed.stdout)")
            let devices = try DeletionDisk.json(
                try Shell.run([CarveBinary.path, "devices", disk.disk.device, "--json", "--output", "NAME,MOUNTPOINTS"])
            )
            let device = try #require((devices["blockdevices"] as? [[String: Any]])?.first)
            let shown = try #require(device["mountpoints"] as? [String])
            let exact = try #require(device["mountpoints_base64"] as? [Any])
            #expect(shown.count == 2 && exact.count == 2)
            let index = try #require(shown.firstIndex(of: disk.disk.directory + "/m\u{FFFD}"))
            #expect(exact[index] as? String == Data(odd).base64EncodedString())
            #expect(exact[1 - index] is NSNull)
        }
    }

    /// The paths `btrfs subvolume list` prints that contain `needle`, as raw bytes.
    static func referencePaths(_ disk: DeletionDisk, containing needle: String) throws -> [[UInt8]] {
        let encoded = try Shell.check([
            "sh", "-c", "btrfs subvolume list \"$0\" | grep -a \"$1\" | base64 -w0", disk.mountpoint, needle,
        ])
        let bytes = [UInt8](Data(base64Encoded: encoded.trimmingCharacters(in: .whitespacesAndNewlines)) ?? Data())
        return bytes.split(separator: 0x0A).compactMap { line in
            let marker = Array(" path ".utf8)
            guard
                let start = (0...(line.count - marker.count)).first(where: {
                    Array(line.dropFirst($0).prefix(marker.count)) == marker
                })
            else { return nil }
            return Array(line.dropFirst(start + marker.count))
        }.sorted { $0.lexicographicallyPrecedes($1) }
    }

    @Test func aSymlinkToAnotherFilesystemIsNotFollowed() throws {
        try withDeletionDisk { first in
            try withDeletionDisk { second in
                try second.snapshot("theirs")
                try FileManager.default.createSymbolicLink(
                    atPath: first.mountpoint + "/snaps/.snapshots", withDestinationPath: second.mountpoint + "/snaps")
                let before = (try first.subvolumes(), try second.subvolumes())
                let result = try first.carve([
                    "snapshots", "delete", first.mountpoint + "/snaps/.snapshots/theirs",
                    "--filesystem", first.mountpoint, "--yes", "--sizes", "none",
                ])
                #expect(result.status == 64)
                #expect(
                    result.stderr
                        == "carve: \(first.mountpoint)/snaps/.snapshots/theirs is on another filesystem (\(second.mountpoint)) than --filesystem \(first.mountpoint)\n"
                )
                let listed = try first.carve([
                    "snapshots", "delete", "--filesystem", first.mountpoint, "--all", "--yes", "--sizes", "none",
                ])
                #expect(
                    listed.status == 0 && listed.stdout == "no snapshots matched\n", "\(listed.stdout)\(listed.stderr)")
                #expect((try first.subvolumes(), try second.subvolumes()) == before)
            }
        }
    }

    @Test func aHugeEndlessOrBlockingInfoXMLNeitherHangsNorFillsMemory() throws {
        try withDeletionDisk(size: "1G") { disk in
            let snapshots = disk.mountpoint + "/data/.snapshots"
            for number in 1...3 {
                try FileManager.default.createDirectory(
                    atPath: "\(snapshots)/\(number)", withIntermediateDirectories: true)
                try Shell.check([
                    "btrfs", "subvolume", "snapshot", "-r", disk.mountpoint + "/data",
                    "\(snapshots)/\(number)/snapshot",
                ])
            }
            let huge = "\(snapshots)/1/info.xml"
            try Data("<?xml version=\"1.0\"?>\n<snapshot><description>".utf8).write(to: URL(fileURLWithPath: huge))
            try Shell.check(["sh", "-c", "head -c 100M /dev/zero | tr '\\0' x >> \"$0\"", huge])
            try FileManager.default.createSymbolicLink(
                atPath: "\(snapshots)/2/info.xml", withDestinationPath: "/dev/zero")
            try Shell.check(["mkfifo", "\(snapshots)/3/info.xml"])
            let result = try Shell.run([
                "timeout", "120", "/usr/bin/time", "-f", "peak-rss-kib %M", CarveBinary.path,
                "snapshots", "list", disk.mountpoint, "--sizes", "none", "--output", "ID,PATH,MANAGER",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let peak = result.stderr.split(separator: "\n").last { $0.hasPrefix("peak-rss-kib ") }.flatMap {
                Int($0.dropFirst(13))
            }
            #expect((peak ?? .max) < 200 * 1024, "a 100 MB info.xml is not read whole: peak \(peak ?? -1) KiB")
            for number in 1...3 {
                #expect(result.stdout.contains("/data/.snapshots/\(number)/snapshot"), "still listed: \(number)")
            }
            #expect(result.stderr.contains("info.xml"), "each bad info.xml is named in a warning: \(result.stderr)")
        }
    }
}
