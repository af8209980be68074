import CarveCore

/// btrbk's schedule: `btrbk.timer`, and the `volume PATH` lines of btrbk.conf (where
/// btrbk looks for it first).
struct BtrbkScheduleFiles: OwnerScheduleFiles {
    func watches(_ timer: String) -> Bool { timer == BtrbkSchedule.timer }

    func schedule(host: HostRoot, enabled: [String]) -> (any OwnerSchedule)? {
        guard enabled.contains(BtrbkSchedule.timer) else { return nil }
        let text = ["/etc/btrbk/btrbk.conf", "/etc/btrbk.conf"].lazy.compactMap({ Files.text(host.path($0)) }).first
        return BtrbkSchedule(
            volumes: text.map { text in
                text.split(separator: "\n").compactMap { line in
                    let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                    return words.count >= 2 && words[0] == "volume" ? String(words[1]) : nil
                }
            })
    }
}
