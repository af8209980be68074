import CarveCore
import CarveTestSupport
import Foundation
import Testing

/// `carve devices --dump` of real loop devices, replayed with `--sysroot`, prints what
/// the live listing prints, in every column set; and lsblk 2.38 reads the dump too.
@Suite(.serialized, .integration())
struct DeviceDumpReplayTests {
    static let columnSets: [[String]] = [
        ["-o", "NAME,KNAME,PKNAME,MAJ:MIN,RM,SIZE,RO,TYPE,MOUNTPOINT,MOUNTPOINTS,FSROOTS"],
        ["-o", "NAME,FSTYPE,FSVER,LABEL,UUID,PTTYPE,PTUUID,PARTLABEL,PARTUUID,PARTTYPE,START"],
        ["-t"], ["-D"], ["-z"], ["-m"], ["-b", "-t"], ["-r", "-o", "NAME,HOTPLUG,RAND,STATE,SCHED,MODEL,VENDOR,REV"],
    ]

    @Test func aDumpReplaysToTheLiveListing() throws {
        try withLiveFilesystems { fixture in
            let dump = try Integration.makeScratchDirectory() + "/machine"
            defer { _ = try? Shell.run(["rm", "-rf", dump]) }
            let roots = [fixture.gpt.device, fixture.xfs.device]
            let made = try Shell.run([CarveBinary.path, "devices", "--dump", dump] + roots)
            #expect(made.status == 0, "\(made.stderr)")
            #expect(made.stdout.isEmpty)
            for options in Self.columnSets {
                let live = try Shell.run([CarveBinary.path, "devices"] + options + roots)
                #expect(live.status == 0 && !live.stdout.isEmpty, "\(options): \(live.stderr)")
                let replayed = try Shell.run([CarveBinary.path, "devices", "--sysroot", dump] + options)
                #expect(replayed.status == 0, "\(options): \(replayed.stderr)")
                #expect(
                    replayed.stdout == live.stdout,
                    "--sysroot \(options.joined(separator: " ")) differs from the live listing:\n\(replayed.stdout)\n---\n\(live.stdout)"
                )
            }
            // lsblk 2.38 reads the dump as carve does, where the two versions agree.
            let columns = "NAME,KNAME,MAJ:MIN,RM,SIZE,RO,TYPE,FSTYPE,LABEL,UUID,PARTUUID,PARTTYPE,PTTYPE,MOUNTPOINT"
            let theirs = try Shell.run(["lsblk", "--sysroot", dump, "-o", columns])
            let ours = try Shell.run([CarveBinary.path, "devices", "--sysroot", dump, "-o", columns])
            #expect(theirs.status == 0 && ours.status == 0, "lsblk: \(theirs.stderr) carve: \(ours.stderr)")
            #expect(theirs.stdout.contains(PathText.lastComponent(of: fixture.xfs.device)), "\(theirs.stdout)")
            #expect(ours.stdout == theirs.stdout, "\(ours.stdout)\n---\n\(theirs.stdout)")
        }
    }
}
