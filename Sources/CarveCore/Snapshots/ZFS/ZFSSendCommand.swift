/// The snapshots a running `zfs send` reads, from its command line (`/proc/PID/cmdline`):
/// OpenZFS refuses to destroy them while it runs ("dataset is busy"), zfs-fuse destroys
/// them under it, and either way the backup that was reading one has to start over.
///
/// `zfs send` overwrites the `@` of its own arguments with a NUL as it parses them
/// (`zfs_do_send`: `*cp = '\0'` in OpenZFS 2.x and zfs-fuse alike), so `tank/a@x` reads as
/// the two arguments `tank/a` and `x`, and `-i @x` as an empty one and `x`. The names are
/// therefore candidates: every argument with an `@`, every two neighbours joined by one,
/// and every `DATASET@x` for a `@x` a send names relative to its target. A candidate that
/// names no snapshot matches nothing; one that does is being sent (failing closed).
public enum ZFSSendCommand {
    /// The options that take a value (`-i SNAP`, `-I SNAP`, `-t TOKEN`, `-X DATASET`).
    static let withValue: Set<Character> = ["i", "I", "t", "X"]

    /// The candidate names of the snapshots `arguments` (a whole command line, `zfs send
    /// …`) reads; empty for any other command.
    public static func snapshots(_ arguments: [String]) -> [String] {
        guard arguments.count > 2, arguments[0] == "zfs" || arguments[0].hasSuffix("/zfs"), arguments[1] == "send"
        else { return [] }
        let rest = Array(arguments.dropFirst(2))
        var candidates: [String] = []
        var datasets: [String] = []
        var relative: [String] = []
        for (index, argument) in rest.enumerated() {
            let next = index + 1 < rest.count ? rest[index + 1] : nil
            if argument.hasPrefix("-") { continue }
            if argument.contains("@") {
                if argument.hasPrefix("@") {
                    relative.append(String(argument.dropFirst()))
                } else {
                    candidates.append(argument)
                }
                continue
            }
            if argument.isEmpty, let next, !next.isEmpty, !next.hasPrefix("-") { relative.append(next) }
            guard !argument.isEmpty, !argument.contains("#") else { continue }
            datasets.append(argument)
            if let next, !next.isEmpty, !next.hasPrefix("-"), !next.contains("@") {
                candidates.append(argument + "@" + next)
            }
        }
        for dataset in datasets + candidates.map({ String(ZFSName.dataset(of: $0)) }) {
            for name in relative { candidates.append(dataset + "@" + name) }
        }
        var seen = Set<String>()
        return candidates.filter { seen.insert($0).inserted }
    }
}
