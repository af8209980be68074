import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// `carve devices` against lsblk itself, byte for byte, on the same loop devices with
/// udevd running: tables and lists, --raw, --pairs, --noheadings, --paths, --nodeps,
/// --bytes and the FS* columns (statvfs of mounted filesystems), and the exit status
/// when no named device exists. (The fixture's names are ASCII: in a table, lsblk
/// escapes other bytes by the locale, carve keeps UTF-8 as it is.)
@Suite(.serialized, .integration())
struct DevicesLikeLsblkIntegrationTests {
    /// The shapes scripts use; each is run by both tools with the fixture's devices named.
    static let invocations: [[String]] = [
        ["-rno", "NAME,FSTYPE,FSAVAIL"],
        ["-r", "-o", "NAME,LABEL,FSTYPE,FSSIZE,FSUSED,FSAVAIL,FSUSE%,MOUNTPOINT,MOUNTPOINTS"],
        ["-rb", "-o", "NAME,SIZE,FSSIZE,FSUSED,FSAVAIL"],
        ["-P", "-o", "NAME,KNAME,PKNAME,MAJ:MIN,TYPE,LABEL,FSUSE%,MOUNTPOINT"],
        ["-Pp", "-o", "NAME,KNAME,PKNAME,PATH"],
        ["-rnd", "-o", "NAME,SIZE,TYPE,PTTYPE"],
        ["-Pnpd", "-o", "NAME,RO,RM,ROTA,LOG-SEC"],
        ["-nr", "-o", "NAME,UUID,PARTUUID,PARTLABEL,PARTTYPE,START"],
        // Tables: lsblk's tree, padding, width hints and MAJ:MIN alignment.
        ["-o", "NAME,MAJ:MIN,RM,SIZE,RO,TYPE,MOUNTPOINTS"],
        ["-o", "NAME,FSTYPE,FSSIZE,FSUSED,FSAVAIL,FSUSE%,MOUNTPOINT"],
        ["-l", "-o", "NAME,KNAME,PKNAME,SIZE,START,LOG-SEC,PTTYPE,PARTTYPE"],
        ["-lnb", "-o", "NAME,SIZE,UUID,PARTUUID,RO,RM,ROTA"],
        ["-dp", "-o", "NAME,SIZE,TYPE,PTUUID"],
    ]

    @Test func outputIsByteIdenticalToLsblk() throws {
        let startedByUs = try Udevd.start()
        defer { Udevd.stop(startedByUs: startedByUs) }
        try withFilesystemsFixture { fixture in
            // A label with what raw and pairs must escape: blanks, quotes, $ and a backslash.
            try Shell.check(["e2label", fixture.ext4, #"a "b" $c\d"#])
            try fixture.gpt.mount(fixture.ext4)
            let second = try fixture.gpt.mount(fixture.ext4)
            try Shell.check(["dd", "if=/dev/zero", "of=\(second)/fill", "bs=1M", "count=40", "status=none"])
            try fixture.gpt.mount(fixture.btrfs)
            try fixture.xfs.mount(fixture.xfs.device)
            try Shell.check(["sync"])
            try Udevd.trigger(fixture.nodes)
            Udevd.settle()
            for options in Self.invocations {
                let theirs = try Shell.run(["lsblk"] + options + fixture.nodes)
                let ours = try Shell.run([CarveBinary.path, "devices"] + options + fixture.nodes)
                #expect(theirs.status == 0, "lsblk \(options): \(theirs.stderr)")
                #expect(ours.status == 0, "carve devices \(options): \(ours.stderr)")
                #expect(
                    ours.stdout == theirs.stdout,
                    "carve devices \(options.joined(separator: " ")) differs from lsblk:\n\(ours.stdout)\n---\n\(theirs.stdout)"
                )
            }
            let json = ["-J", "-b", "-o", "NAME,FSSIZE,FSUSED,FSAVAIL,FSUSE%"]
            let ours = try Reference.flattenedJSON(
                try Shell.check([CarveBinary.path, "devices"] + json + fixture.nodes))
            let theirs = try Reference.flattenedJSON(try Shell.check(["lsblk"] + json + fixture.nodes))
            #expect(ours.keys.sorted() == theirs.keys.sorted())
            for (name, device) in theirs {
                for key in ["fssize", "fsused", "fsavail", "fsuse%"] {
                    #expect("\(device[key] ?? "absent")" == "\(ours[name]?[key] ?? "absent")", "\(name) \(key)")
                }
            }
        }
    }

    @Test func noNamedDeviceFoundIsExit32AsInLsblk() throws {
        let missing = "/dev/carve-test-no-such-device"
        let theirs = try Shell.run(["lsblk", "-rn", missing])
        let ours = try Shell.run([CarveBinary.path, "devices", "-rn", missing])
        #expect(theirs.status == 32)
        #expect(ours.status == 32)
        #expect(ours.stdout == theirs.stdout)
        #expect(ours.stderr == "carve: \(missing): no such file or directory\n")
    }
}
