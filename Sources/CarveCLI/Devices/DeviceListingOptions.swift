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

    func validate() throws {
        let formats = [("--json", json), ("--raw", raw), ("--pairs", pairs)].filter(\.1).map(\.0)
        if formats.count > 1 { throw ValidationError("\(formats.joined(separator: " and ")) are mutually exclusive") }
    }

    /// The listing of `forest` as these options ask for it.
    func view(of forest: [DeviceTreeNode], columns: [Column<DeviceRow>]) -> DeviceListingView {
        var view = DeviceListingView(forest: forest, columns: columns, format: format, tree: !list, bytes: bytes)
        view.headings = !noHeadings
        view.paths = paths
        return view
    }

    private var format: DeviceListingView.Format {
        json ? .json : raw ? .raw : pairs ? .pairs : .table
    }
}
