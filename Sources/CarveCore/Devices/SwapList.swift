/// Parses /proc/swaps: a header line, then one line per active swap area with
/// its path (spaces and other odd bytes as `\NNN` octal escapes), type, size,
/// used and priority. lsblk shows an active swap device's mountpoint as "[SWAP]".
public enum SwapList {
    /// What lsblk prints as the mountpoint of an active swap device.
    public static let mountpoint = "[SWAP]"

    /// The paths of the active swap areas that are devices (type "partition"), not files.
    public static func devicePaths(_ text: String) throws(ParseError) -> [String] {
        try paths(text, type: "partition")
    }

    /// The paths of the active swap files (type "file").
    public static func filePaths(_ text: String) throws(ParseError) -> [String] {
        try paths(text, type: "file")
    }

    private static func paths(_ text: String, type: Substring) throws(ParseError) -> [String] {
        var paths: [String] = []
        for (index, line) in text.split(separator: "\n").enumerated() where index > 0 {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 5 else {
                throw ParseError(line: index + 1, of: "/proc/swaps", reason: "expected five fields")
            }
            if fields[1] == type { paths.append(MountInfo.unescape(String(fields[0]))) }
        }
        return paths
    }

    /// Mount-table entries for swap devices, so they are attached by source path like
    /// any mount (their device number is left 0:0, which no block device has).
    public static func entries(for paths: [String]) -> [MountEntry] {
        paths.map { path in
            MountEntry(
                mountID: -1, parentID: -1, number: DeviceNumber(major: 0, minor: 0), root: "/",
                mountpoint: mountpoint, options: [], fsType: "swap", source: path, superOptions: [])
        }
    }
}
