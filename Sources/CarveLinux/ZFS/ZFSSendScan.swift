import CarveCore

/// The `zfs send` processes running now, read from /proc (under the host root): ZFS
/// refuses to destroy a snapshot a send reads, so a bulk run leaves it out and says why.
/// A send in another PID namespace or hidden by `hidepid` is not seen; ZFS then refuses
/// the destroy itself ("dataset is busy"), which the report gives.
struct ZFSSendScan {
    let host: HostRoot

    /// The snapshots being sent, each with the processes sending it (`4242 (zfs)`).
    func running() -> [String: [String]] {
        var sent: [String: [String]] = [:]
        for name in Files.names(in: host.path("/proc")) ?? [] where name.utf8.allSatisfy({ (0x30...0x39).contains($0) })
        {
            // Only a process whose command is zfs has its command line read.
            guard Files.text(host.path("/proc/\(name)/comm")) == "zfs\n",
                let bytes = Files.contents(host.path("/proc/\(name)/cmdline"))
            else { continue }
            let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map { ByteText.decode($0) }
            for snapshot in ZFSSendCommand.snapshots(arguments.last == "" ? Array(arguments.dropLast()) : arguments) {
                sent[snapshot, default: []].append("\(name) (zfs send)")
            }
        }
        return sent
    }
}
