/// The snapshots a running `zfs send` reads, from its command line (`/proc/PID/cmdline`):
/// ZFS refuses to destroy them while it runs ("dataset is busy"), and a backup that
/// lost its base mid-stream would have to start over. The option letters are those of
/// `zfs send`'s usage in OpenZFS 2.x and zfs-fuse.
public enum ZFSSendCommand {
    /// The options that take a value (`-i SNAP`, `-I SNAP`, `-t TOKEN`, `-X DATASET`, and
    /// the long `--redact BOOKMARK`).
    static let withValue: Set<Character> = ["i", "I", "t", "X"]

    /// The full names of the snapshots `arguments` (a whole command line, `zfs send …`)
    /// sends from or sends; empty for any other command.
    public static func snapshots(_ arguments: [String]) -> [String] {
        guard arguments.count > 2, arguments[0] == "zfs" || arguments[0].hasSuffix("/zfs"), arguments[1] == "send"
        else { return [] }
        var bases: [String] = []
        var positional: [String] = []
        var index = 2
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--redact" || argument == "--exclude" {
                index += 1
            } else if argument.hasPrefix("--") {
                continue
            } else if argument.hasPrefix("-"), argument.count > 1 {
                // A cluster like -vRi: a letter that takes a value takes the rest, or the next argument.
                var letters = argument.dropFirst()
                while let letter = letters.first {
                    letters = letters.dropFirst()
                    guard withValue.contains(letter) else { continue }
                    let value = letters.isEmpty ? (index < arguments.count ? arguments[index] : "") : String(letters)
                    if letters.isEmpty { index += 1 }
                    if letter == "i" || letter == "I" { bases.append(value) }
                    break
                }
            } else {
                positional.append(argument)
            }
        }
        guard let target = positional.last, target.contains("@") else { return positional.last.map { [$0] } ?? [] }
        let dataset = ZFSName.dataset(of: target)
        // `-i @snap` names a snapshot of the target's dataset; a bookmark (`#`) is no snapshot.
        let named = bases.filter { !$0.contains("#") && !$0.isEmpty }.map { $0.hasPrefix("@") ? dataset + $0 : $0 }
        return named + [target]
    }
}
