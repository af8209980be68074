import CarveCore
import CarveLinux
import Foundation
import Testing
import CarveTestSupport

/// carve's view of real loop devices against `blkid -p -o export` and `lsblk -J -b`
/// on the same devices, with udevd running and without it.
@Suite(.serialized, .integration())
struct DeviceSourceIntegrationTests {
    /// The fields compared, as carve's JSON keys (those of lsblk -J -b).
    static let columns = [
        "NAME", "FSTYPE", "UUID", "LABEL", "PARTUUID", "PTTYPE", "SIZE", "MAJ:MIN", "TYPE", "MOUNTPOINTS",
    ]
    /// With udevd, lsblk knows everything: every column carve shares with it is compared.
    static let allColumns =
        columns + [
            "KNAME", "PATH", "FSVER", "PARTTYPE", "PARTLABEL", "PTUUID", "RO", "RM", "ROTA", "START", "LOG-SEC",
            "PKNAME", "MOUNTPOINT", "MODEL", "SERIAL",
        ]

    @Test func agreesWithBlkidAndLsblkWithUdevd() throws {
        let startedByUs = try Udevd.start()
        defer { Udevd.stop(startedByUs: startedByUs) }
        #expect(UdevDaemon.isRunning(), "carve must see the udevd that runs, or it would not read its records")
        try withFilesystemsFixture { fixture in
            let mounted = try fixture.gpt.mount(fixture.ext4)
            let mountedAgain = try fixture.gpt.mount(fixture.ext4)
            let pool = try fixture.gpt.mount(fixture.btrfs)
            let poolAgain = try fixture.gpt.mount(fixture.btrfs)
            // udevd learns of a new filesystem from an inotify "change" event that can
            // come after a settle: replay it so lsblk's udev records are current.
            try Udevd.trigger(fixture.nodes)
            Udevd.settle()
            let carve = try carveDevices(fixture.nodes, columns: Self.allColumns)
            let lsblk = try Reference.lsblk(fixture.nodes, columns: Self.allColumns)
            for node in fixture.nodes {
                let name = URL(fileURLWithPath: node).lastPathComponent
                let ours = try #require(carve[name], "carve does not list \(node)")
                try expectSame(ours, asBlkid: try Reference.blkid(node), node: node)
                let theirs = try #require(lsblk[name], "lsblk does not list \(node)")
                for key in Self.allColumns.map({ $0.lowercased() }) {
                    #expect(
                        render(ours[key]) == render(theirs[key]),
                        "\(node) \(key): carve \(render(ours[key])), lsblk \(render(theirs[key]))")
                }
            }
            #expect(render(carve[name(fixture.ext4)]?["mountpoints"]) == render([mountedAgain, mounted]))
            #expect(
                render(carve[name(fixture.btrfs)]?["mountpoints"]) == render([poolAgain, pool]),
                "btrfs is found by source path")
        }
    }

    /// Without udevd, lsblk 2.38 prints null for everything udev would have told it;
    /// carve probes instead. So blkid is the reference for content, lsblk for sysfs.
    @Test func agreesWithBlkidWithoutUdevd() throws {
        if UdevDaemon.isRunning() {
            // Not ours to stop: this comparison cannot be made on this machine now.
            try Test.cancel(
                "a systemd-udevd this test did not start is running; the without-udevd comparison is skipped")
        }
        try withFilesystemsFixture { fixture in
            try fixture.gpt.mount(fixture.ext4)
            try fixture.gpt.mount(fixture.btrfs)
            let carve = try carveDevices(fixture.nodes, columns: Self.allColumns)
            let lsblk = try Reference.lsblk(fixture.nodes, columns: Self.columns)
            var lsblkNulls: [String] = [], lsblkStale: [String] = []
            for node in fixture.nodes {
                let name = URL(fileURLWithPath: node).lastPathComponent
                let ours = try #require(carve[name], "carve does not list \(node)")
                try expectSame(ours, asBlkid: try Reference.blkid(node), node: node)
                let theirs = try #require(lsblk[name], "lsblk does not list \(node)")
                for key in ["name", "size", "maj:min", "type", "mountpoints"] {
                    #expect(render(ours[key]) == render(theirs[key]), "\(node) \(key)")
                }
                for key in ["fstype", "uuid", "label", "partuuid", "pttype"] {
                    if theirs[key] is NSNull { lsblkNulls.append("\(name).\(key)"); continue }
                    // Without udevd, lsblk believes whatever record an earlier udevd left for this
                    // device number, even one of another test's image: blkid, checked above, is the truth.
                    if render(ours[key]) != render(theirs[key]) { lsblkStale.append("\(name).\(key)") }
                }
            }
            print(
                "without udevd, lsblk printed null for \(lsblkNulls.count) fields carve probed: \(lsblkNulls.prefix(6).joined(separator: " "))…"
            )
            if !lsblkStale.isEmpty {
                print("without udevd, lsblk showed stale udev records for: \(lsblkStale.joined(separator: " "))")
            }
        }
    }

    /// Without root and without udevd, sysfs still gives sizes and numbers; the
    /// content fields stay null and one stderr line names them.
    @Test func nonRootListsWhatItCanAndNamesWhatNeedsRoot() throws {
        if UdevDaemon.isRunning() {
            try Test.cancel("a systemd-udevd is running: a non-root carve would read its records, not need root")
        }
        try withFilesystemsFixture { fixture in
            let asRoot = try carveDevices(fixture.nodes)
            let binary = try CarveBinary.copy(into: fixture.gpt.directory)
            let result = try Shell.run(
                [
                    "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", binary, "devices", "--json",
                    "-o", Self.columns.joined(separator: ","),
                ] + fixture.nodes)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stderr
                    == "carve: not root: FSTYPE, UUID, LABEL, PARTUUID, PTTYPE missing where udev has no record (probing a device needs root)\n"
            )
            let asNobody = try Reference.flattenedJSON(result.stdout)
            for node in fixture.nodes {
                let name = name(node)
                for key in ["size", "maj:min", "type", "mountpoints"] {
                    #expect(render(asNobody[name]?[key]) == render(asRoot[name]?[key]), "\(node) \(key)")
                }
                for key in ["fstype", "uuid", "label", "partuuid", "pttype"] {
                    #expect(render(asNobody[name]?[key]) == "null", "\(node) \(key) without root")
                }
            }
        }
    }

    /// When udevd stops, its records stay and go stale: a device reformatted since
    /// keeps its old filesystem in /run/udev/data. lsblk believes the record; carve
    /// does not trust records without a running udevd and probes the device.
    @Test func staleUdevRecordsAreNotBelievedOnceUdevdStopped() throws {
        guard !UdevDaemon.isRunning() else {
            try Test.cancel(
                "a systemd-udevd this test did not start is running; it cannot be stopped to leave stale records")
        }
        let disk = try LoopDisk(size: "320M")
        let numbers = try Shell.check(["stat", "-c", "%t %T", disk.device]).split(separator: " ")
            .compactMap { UInt32($0.trimmingCharacters(in: .whitespacesAndNewlines), radix: 16) }
        defer {
            disk.cleanup()
            // The stale record this test made must not mislead later lsblk runs.
            if numbers.count == 2 {
                try? FileManager.default.removeItem(atPath: "/run/udev/data/b\(numbers[0]):\(numbers[1])")
            }
        }
        try Shell.check(["mkfs.ext4", "-q", "-F", "-L", "before", disk.device])
        let startedByUs = try Udevd.start()
        try Udevd.trigger([disk.device])
        Udevd.stop(startedByUs: startedByUs)
        #expect(!UdevDaemon.isRunning())
        try Shell.check(["mkfs.xfs", "-q", "-f", "-L", "after", disk.device])
        let lsblk = try Reference.lsblk([disk.device], columns: ["NAME", "FSTYPE", "LABEL"])[name(disk.device)]
        let carve = try carveDevices([disk.device])[name(disk.device)]
        #expect(render(carve?["fstype"]) == "xfs" && render(carve?["label"]) == "after")
        // What makes the test meaningful: the record really was stale.
        #expect(render(lsblk?["fstype"]) == "ext4", "lsblk read the stale udev record")
    }

    /// A device named through a symlink (as /dev/disk/by-uuid/... are) is the device itself.
    @Test func deviceAtFollowsSymlinks() throws {
        try withFilesystemsFixture { fixture in
            let link = fixture.gpt.directory + "/by-label-my-data"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: fixture.ext4)
            let source = LinuxDeviceSource()
            let device = try source.device(at: link)
            #expect(device.name == name(fixture.ext4))
            #expect(device.properties.label == FilesystemsFixture.ext4Label)
            #expect(device.properties.fsType == "ext4")
            #expect(device.parent == name(fixture.gpt.device))
            #expect(source.fieldsNeedingRoot(on: [device.name]).isEmpty, "root can probe")
        }
    }

    /// An active swap partition's mountpoint is "[SWAP]", as lsblk shows it.
    @Test func activeSwapShowsLikeLsblk() throws {
        try withFilesystemsFixture { fixture in
            try Shell.check(["swapon", fixture.swap])
            defer { _ = try? Shell.run(["swapoff", fixture.swap]) }
            let carve = try carveDevices([fixture.swap])
            let lsblk = try Reference.lsblk([fixture.swap], columns: ["NAME", "MOUNTPOINTS"])
            #expect(render(carve[name(fixture.swap)]?["mountpoints"]) == "[[SWAP]]")
            #expect(
                render(carve[name(fixture.swap)]?["mountpoints"]) == render(lsblk[name(fixture.swap)]?["mountpoints"]))
        }
    }

    /// A label is bytes: one that is not UTF-8 is `\xHH` in the table and comes back
    /// exactly from `label_base64`, as `blkid -p` reads it, from libblkid's probe and
    /// from udev's ID_FS_LABEL_ENC alike.
    @Test func aLabelThatIsNotUTF8IsExactWithAndWithoutUdevd() throws {
        let disk = try LoopDisk(size: "64M")
        defer { disk.cleanup() }
        try Shell.check(["sh", "-c", "mkfs.ext4 -q -L \"caf$(printf '\\351')\" \"$0\"", disk.device])
        let expected = Data(Array("caf".utf8) + [0xE9])
        let reference = try Shell.check([
            "sh", "-c", "blkid -p -s LABEL -o value \"$0\" | head -c -1 | base64 -w0", disk.device,
        ])
        #expect(Data(base64Encoded: reference) == expected, "blkid -p reads the label's bytes")
        func expectExact(_ situation: String) throws {
            let json = try Reference.flattenedJSON(
                Shell.check([CarveBinary.path, "devices", "--json", "-o", "NAME,LABEL", disk.device]))
            let ours = json[name(disk.device)]
            #expect(ours?["label"] as? String == "caf\u{FFFD}", "\(situation)")
            #expect(ours?["label_base64"] as? String == expected.base64EncodedString(), "\(situation)")
            let table = try Shell.check([CarveBinary.path, "devices", "-o", "NAME,LABEL", disk.device])
            #expect(table.contains(" caf\\xe9\n"), "\(situation): \(table)")
        }
        try expectExact(UdevDaemon.isRunning() ? "with a udevd already running" : "without udevd")
        let startedByUs = try Udevd.start()
        defer { Udevd.stop(startedByUs: startedByUs) }
        try Udevd.trigger([disk.device])
        Udevd.settle()
        try expectExact("with udevd")
    }

    /// `carve devices --json` for the nodes, flattened by name.
    func carveDevices(_ nodes: [String], columns: [String] = columns) throws -> [String: [String: Any]] {
        let result = try Shell.run(
            [CarveBinary.path, "devices", "--json", "-o", columns.joined(separator: ",")] + nodes)
        #expect(result.status == 0, "carve devices: \(result.stderr)")
        return try Reference.flattenedJSON(result.stdout)
    }

    /// fstype/uuid/label/partuuid/pttype/size equal blkid's low-level probe.
    func expectSame(_ ours: [String: Any], asBlkid blkid: [String: String], node: String) throws {
        #expect(ours["fstype"] as? String == blkid["TYPE"], "\(node) fstype")
        #expect(ours["uuid"] as? String == blkid["UUID"], "\(node) uuid")
        #expect(ours["label"] as? String == blkid["LABEL"], "\(node) label")
        #expect(ours["partuuid"] as? String == blkid["PART_ENTRY_UUID"], "\(node) partuuid")
        #expect(ours["pttype"] as? String == (blkid["PTTYPE"] ?? blkid["PART_ENTRY_SCHEME"]), "\(node) pttype")
        if ours.keys.contains("fsver") {
            #expect(ours["fsver"] as? String == blkid["VERSION"], "\(node) fsver")
            #expect(ours["parttype"] as? String == blkid["PART_ENTRY_TYPE"], "\(node) parttype")
            #expect(ours["partlabel"] as? String == blkid["PART_ENTRY_NAME"], "\(node) partlabel")
            if let ptuuid = blkid["PTUUID"] { #expect(ours["ptuuid"] as? String == ptuuid, "\(node) ptuuid") }
        }
        if let sectors = blkid["PART_ENTRY_SIZE"].flatMap(UInt64.init) {
            #expect((ours["size"] as? NSNumber)?.uint64Value == sectors * 512, "\(node) size")
        }
        let bytes = UInt64(
            try Shell.check(["blockdev", "--getsize64", node]).trimmingCharacters(in: .whitespacesAndNewlines))
        #expect((ours["size"] as? NSNumber)?.uint64Value == bytes, "\(node) size")
    }

    func name(_ node: String) -> String { URL(fileURLWithPath: node).lastPathComponent }
}

/// A JSON value as text, so values of JSONSerialization's types compare simply.
func render(_ value: Any?) -> String {
    guard let value, !(value is NSNull) else { return "null" }
    if let array = value as? [Any] { return "[" + array.map(render).joined(separator: ",") + "]" }
    if let number = value as? NSNumber {
        // JSONSerialization gives booleans as NSNumber too; lsblk's and carve's are both JSON booleans.
        return String(cString: number.objCType) == "c" ? (number.boolValue ? "true" : "false") : number.stringValue
    }
    return "\(value)"
}
