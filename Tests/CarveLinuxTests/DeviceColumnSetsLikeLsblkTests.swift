import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// lsblk's column-set letters and the columns of sysfs attributes, against lsblk 2.38
/// itself on the same loop devices with udevd running, in the C and the UTF-8 locale:
/// -f, -t, -m, -D, -z, -S, -x, -a, -e, -I, alone and with the output formats.
@Suite(.serialized, .integration())
struct DeviceColumnSetsLikeLsblkTests {
    static let invocations: [[String]] = [
        ["-f"], ["-t"], ["-m"], ["-D"], ["-z"], ["-S"], ["-f", "-o", "+SIZE"], ["-l", "-f"], ["-r", "-t"],
        ["-P", "-f"], ["-n", "-t"], ["-b", "-t"], ["-b", "-D"], ["-x", "NAME", "-o", "NAME,SIZE,TYPE"],
        ["-x", "MAJ:MIN", "-o", "NAME,MAJ:MIN"],
        // Ties keep the order lsblk meets devices in (sysfs directory order).
        ["-x", "TYPE", "-o", "NAME,TYPE"], ["-x", "RO", "-o", "NAME,RO,TYPE"], ["-x", "FSTYPE", "-o", "NAME,FSTYPE"],
        ["-a", "-o", "NAME,RO,RM,SIZE"], ["-e", "259", "-o", "NAME,SIZE"],
        ["-I", "7", "-o", "NAME,SIZE"], ["-o", "NAME,STATE,HOTPLUG,RAND,SCHED,RQ-SIZE,RA"],
        ["-o", "NAME,VENDOR,MODEL,REV,SERIAL,WWN,HCTL"], ["-o", "NAME,PARTFLAGS,PARTLABEL,PARTTYPE"],
        ["-o", "NAME,DAX,ZONED,ZONE-SZ,DISC-GRAN,DISC-MAX,WSAME,PHY-SEC,MIN-IO,OPT-IO,ALIGNMENT"],
    ]

    @Test func columnSetsAreByteIdenticalToLsblk() throws {
        try withLiveFilesystems { fixture in
            for locale in ["POSIX", "C.UTF-8"] {
                let environment = ["LANG": locale, "LC_ALL": locale]
                for options in Self.invocations {
                    let theirs = try Shell.run(["lsblk"] + options + fixture.nodes, environment: environment)
                    let ours = try Shell.run(
                        [CarveBinary.path, "devices"] + options + fixture.nodes, environment: environment)
                    #expect(ours.status == theirs.status, "\(options): \(ours.stderr)")
                    #expect(
                        ours.stdout == theirs.stdout,
                        "LANG=\(locale) carve devices \(options.joined(separator: " ")) differs from lsblk:\n\(ours.stdout)\n---\n\(theirs.stdout)"
                    )
                }
            }
        }
    }
}

/// The filesystems fixture as a running machine shows it: udevd running and told of
/// every device, the ext4 mounted and the swap partition active.
func withLiveFilesystems(_ body: (FilesystemsFixture) throws -> Void) throws {
    let startedByUs = try Udevd.start()
    defer { Udevd.stop(startedByUs: startedByUs) }
    try withFilesystemsFixture { fixture in
        try fixture.gpt.mount(fixture.ext4)
        try Shell.check(["swapon", fixture.swap])
        defer { _ = try? Shell.run(["swapoff", fixture.swap]) }
        try Udevd.trigger(fixture.nodes)
        Udevd.settle()
        try body(fixture)
    }
}
