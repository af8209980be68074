import ArgumentParser
import CarveCore

/// How `devices` shows what it lists: lsblk's output options.
struct DeviceListingOptions: ParsableArguments {
    @Flag(name: [.customShort("J"), .long], help: "Print JSON, as `lsblk -J -b` does.")
    var json = false

    @Flag(name: [.short, .long], help: "Print a flat list instead of a tree.")
    var list = false

    @Flag(
        name: [.short, .long],
        help: "Print lsblk's raw format: one device per line, cells separated by one space, blanks escaped as \\x20.")
    var raw = false

    @Flag(name: [.customShort("P"), .long], help: "Print lsblk's NAME=\"value\" pairs, one device per line.")
    var pairs = false

    @Flag(name: [.customShort("n"), .customLong("noheadings")], help: "Do not print the header line.")
    var noHeadings = false

    @Flag(name: [.customShort("p"), .long], help: "Print /dev paths in NAME, KNAME and PKNAME.")
    var paths = false

    @Flag(
        name: [.customShort("d"), .long], help: "Print only the named (or top-level) devices, not what sits on them.")
    var nodeps = false

    @Option(
        name: [.short, .long],
        help: "Columns to show, comma-separated; '+COLS' adds to the defaults; 'help' lists them.")
    var output: String?

    @Flag(name: [.short, .long], help: "Print sizes in bytes.")
    var bytes = false

    @Flag(
        name: [.customShort("f"), .long],
        help: "Filesystem columns: NAME, FSTYPE, FSVER, LABEL, UUID, FSAVAIL, FSUSE%, MOUNTPOINTS.")
    var fs = false

    @Flag(
        name: [.customShort("t"), .long],
        help: "Topology columns: NAME, ALIGNMENT, MIN-IO, OPT-IO, PHY-SEC, LOG-SEC, ROTA, SCHED, RQ-SIZE, RA, WSAME.")
    var topology = false

    @Flag(name: [.customShort("m"), .long], help: "Device node columns: NAME, SIZE, OWNER, GROUP, MODE.")
    var perms = false

    @Flag(name: [.customShort("D"), .long], help: "Discard columns: NAME, DISC-ALN, DISC-GRAN, DISC-MAX, DISC-ZERO.")
    var discard = false

    @Flag(
        name: [.customShort("z"), .long],
        help: "Zone columns: NAME, ZONED, ZONE-SZ, ZONE-NR, ZONE-AMAX, ZONE-OMAX, ZONE-APP, ZONE-WGRAN.")
    var zoned = false

    @Flag(
        name: [.customShort("S"), .long],
        help: "SCSI devices only, without what sits on them: NAME, HCTL, TYPE, VENDOR, MODEL, REV, SERIAL, TRAN.")
    var scsi = false

    @Flag(name: [.customShort("O"), .customLong("output-all")], help: "Every column.")
    var outputAll = false

    @Flag(
        name: [.customShort("a"), .long], help: "Also empty devices (loop devices with no file attached) and RAM disks."
    )
    var all = false

    @Option(
        name: [.customShort("e"), .long],
        help: ArgumentHelp(
            "Leave out devices of these major numbers, comma-separated, and what sits on them (default: 1, RAM disks).",
            valueName: "LIST"))
    var exclude: String?

    @Option(
        name: [.customShort("I"), .long],
        help: ArgumentHelp("Show only devices of these major numbers, comma-separated.", valueName: "LIST"))
    var include: String?

    @Option(
        name: [.customShort("x"), .long], help: ArgumentHelp("Sort by this column; prints a list.", valueName: "COLUMN")
    )
    var sort: String?

    /// The column sets the letters ask for, in lsblk's order of them, each column once.
    var columnSets: [String] {
        var names: [String] = []
        let sets: [(Bool, [String])] = [
            (fs, ["NAME", "FSTYPE", "FSVER", "LABEL", "UUID", "FSAVAIL", "FSUSE%", "MOUNTPOINTS"]),
            (perms, ["NAME", "SIZE", "OWNER", "GROUP", "MODE"]),
            (
                topology,
                [
                    "NAME", "ALIGNMENT", "MIN-IO", "OPT-IO", "PHY-SEC", "LOG-SEC", "ROTA", "SCHED", "RQ-SIZE", "RA",
                    "WSAME",
                ]
            ),
            (discard, ["NAME", "DISC-ALN", "DISC-GRAN", "DISC-MAX", "DISC-ZERO"]),
            (zoned, ["NAME", "ZONED", "ZONE-SZ", "ZONE-NR", "ZONE-AMAX", "ZONE-OMAX", "ZONE-APP", "ZONE-WGRAN"]),
            (scsi, ["NAME", "HCTL", "TYPE", "VENDOR", "MODEL", "REV", "SERIAL", "TRAN"]),
        ]
        for (on, set) in sets where on { for name in set where !names.contains(name) { names.append(name) } }
        return names
    }

    /// The majors `--exclude` and `--include` name; RAM disks (1) excluded when neither is given.
    func majorFilter() throws -> MajorFilter {
        func majors(_ text: String?, _ option: String) throws -> Set<UInt32>? {
            guard let text else { return nil }
            var found = Set<UInt32>()
            for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let major = UInt32(String(item).trimmingSpaces) else {
                    throw ValidationError("\(option): '\(item)' is not a major device number")
                }
                found.insert(major)
            }
            return found
        }
        let excluded = try majors(exclude, "--exclude"), included = try majors(include, "--include")
        if excluded != nil && included != nil {
            throw ValidationError("--exclude and --include are mutually exclusive")
        }
        return MajorFilter(excluded: excluded ?? (included == nil && !all ? [1] : []), included: included)
    }

    func validate() throws {
        _ = try majorFilter()
        let formats = [("--json", json), ("--raw", raw), ("--pairs", pairs)].filter(\.1).map(\.0)
        if formats.count > 1 { throw ValidationError("\(formats.joined(separator: " and ")) are mutually exclusive") }
    }

    /// The listing of `forest` as these options ask for it.
    func view(of forest: [DeviceTreeNode], columns: [Column<DeviceRow>]) -> DeviceListingView {
        var view = DeviceListingView(
            forest: forest, columns: columns, format: format, tree: !list && sort == nil, bytes: bytes)
        view.headings = !noHeadings
        view.paths = paths
        return view
    }

    private var format: DeviceListingView.Format {
        json ? .json : raw ? .raw : pairs ? .pairs : .table
    }
}
