import CarveCore
import Testing

/// What /proc tells of carve's own view of the processes: the PID namespace, hidepid,
/// its capabilities, which processes are kernel threads, what a mount namespace shows.
@Suite struct ProcessVisibilityTests {
    @Test(
        arguments: [
            ("pid:[4026531836]", "rw", true, nil),
            ("pid:[4026532512]", "rw", true, "PID namespace other than the host's"),
            (nil, "rw", nil, nil),
            ("pid:[4026531836]", "rw,hidepid=invisible", false, "hidepid=invisible"),
            ("pid:[4026531836]", "rw,hidepid=invisible", nil, "hidepid=invisible"),
            ("pid:[4026531836]", "rw,hidepid=ptraceable,gid=4", false, "hidepid=ptraceable"),
            ("pid:[4026531836]", "rw,hidepid=4", true, nil),
            ("pid:[4026531836]", "rw,hidepid=1", false, nil),
            ("pid:[4026531836]", "rw,hidepid=0", false, nil),
            ("garbage", "", false, nil),
        ] as [(String?, String, Bool?, String?)])
    func blindnessComesFromTheNamespaceOrHidepid(namespace: String?, options: String, traces: Bool?, cause: String?) {
        let found = ProcessVisibility.blindness(
            ownPIDNamespace: namespace, procMount: options.split(separator: ",").map(String.init), canTraceAll: traces)
        if let cause {
            #expect(found?.contains(cause) == true, "\(String(describing: found))")
        } else {
            #expect(found == nil)
        }
    }

    @Test(
        arguments: [
            ("Name:\tcarve\nCapEff:\t000001ffffffffff\n", true),
            ("Name:\tcarve\nCapEff:\t000000000020000e\n", false),
            ("CapEff:\t0000000000080000", true),
            ("Name:\tcarve\n", nil),
            ("CapEff:\tzz\n", nil),
            ("", nil),
        ] as [(String, Bool?)])
    func statusGivesTheEffectiveCapabilities(text: String, ptrace: Bool?) {
        #expect(ProcStatus(text).hasCapability(ProcStatus.capSysPtrace) == ptrace)
    }

    @Test(arguments: [
        ("2 (kthreadd) S 0 0 0 0 -1 2129984 0 0", true),
        ("9458 (sleep) S 9456 9456 1355 0 -1 4194304 139 0", false),
        // A command may hold spaces and parentheses: fields count from the last ')'.
        ("77 (a) b) (c) S 1 1 1 0 -1 2097152 0", true),
        ("77 (x) S 1", false),
        ("no parenthesis at all", false),
        ("20146 (bash) Z 6953 1 1 0 -1 4194560 0", true),
        ("20146 (bash) X 6953 1 1 0 -1 4194560 0", true),
        ("20146 (bash) Z", false),
        ("5 (x) S 1 1 1 0 -1 notanumber", false),
        ("", false),
    ])
    func statTellsAKernelThreadOrAZombie(line: String, holdsNothing: Bool) {
        #expect(ProcStat.holdsNothing(Array(line.utf8)) == holdsNothing)
    }

    @Test func mountinfoGivesEveryWellFormedLinesDeviceNumber() {
        let text = """
            22 27 0:21 / /proc rw,relatime - proc proc rw
            36 27 0:45 /@home /home rw - btrfs /dev/loop3 rw,subvol=/@home
            bad line
            40 27 x:1 / /x rw - tmpfs t rw
            41 27 7:
            42 27 259:3 / /boot rw - ext4 /dev/nvme0n1p1 rw
            """
        #expect(
            MountInfo.deviceNumbers(in: Array(text.utf8)) == [
                DeviceNumber(major: 0, minor: 21), DeviceNumber(major: 0, minor: 45),
                DeviceNumber(major: 259, minor: 3),
            ])
        #expect(MountInfo.deviceNumbers(in: []) == [])
    }

    @Test func theNoteNamesTenProcessesAtMost() {
        let many = UnseenProcesses(
            processes: (1...12).map { VolumeHolder(pid: Int32($0), command: "p\($0)") }, cause: "no CAP_SYS_PTRACE")
        #expect(many.note.contains("PIDs 1 (p1), 2 (p2)"))
        #expect(many.note.contains("10 (p10) and 2 more: no CAP_SYS_PTRACE"))
        #expect(!many.note.contains("11 (p11)"))
        let one = UnseenProcesses(processes: [VolumeHolder(pid: 5, command: "cron")], cause: "x")
        #expect(one.note.hasPrefix("cannot see what 1 process holds (PID 5 (cron): x)"))
        #expect(one.phrase == "process 5, which carve cannot see into (x)")
    }
}
