import CarveCore

/// The mount table of a `--sysroot` dump, read once: a missing file means no mounts,
/// and a line that does not parse is left out and named, as libmount does for lsblk
/// ("parse error at line N -- ignored"), rather than failing the whole listing.
struct DumpMountTable: MountTable {
    let entries: [MountEntry]
    let problems: [String]

    init(host: HostRoot) {
        guard let bytes = Files.contents(host.mountInfo) else {
            entries = []
            problems = ["proc/self/mountinfo: cannot be read; no device is shown mounted"]
            return
        }
        var found: [MountEntry] = [], problems: [String] = []
        let lines = ByteText.decode(bytes).split(separator: "\n", omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() where !line.isEmpty {
            do { found += try MountInfo.parse(String(line)) } catch {
                problems.append("proc/self/mountinfo: line \(index + 1) does not parse; ignored")
            }
        }
        entries = found
        self.problems = problems
    }

    func mounts() throws -> [MountEntry] { entries }
}
