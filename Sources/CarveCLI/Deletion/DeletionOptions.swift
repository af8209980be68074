import ArgumentParser
import CarveCore

/// The options `delete` and `thin` share: how to confirm, what the rules may let
/// through, how to report.
struct DeletionOptions: ParsableArguments {
    @Flag(name: .customLong("dry-run"), help: "Print the plan and stop: nothing is deleted, no lock is taken.")
    var dryRun = false

    @Flag(name: .shortAndLong, help: "Delete without asking (needed when stdin is not a terminal).")
    var yes = false

    @Flag(
        help:
            "Wait until btrfs (or the ZFS pool: its freeing) has freed the space, then report the measured change next to the estimate."
    )
    var wait = false

    @Flag(
        help: ArgumentHelp(
            "Also delete subvolumes nested inside a snapshot (refused otherwise).",
            discussion:
                "Each nested subvolume must pass the safety rules as a snapshot of its own, or the snapshot is kept."
        ))
    var recursive = false

    @Flag(name: .customLong("include-important"), help: "Also delete snapper snapshots marked important.")
    var includeImportant = false

    @Flag(
        name: .customLong("break-chains"),
        help: ArgumentHelp(
            "Also delete the snapshots a send/receive chain needs for its next incremental backup.",
            discussion:
                "Without it, the newest snapshot of each source that has a received copy on a mounted btrfs, the newest backup received from each source, and on ZFS the newest snapshot of each syncoid, zrepl, znapzend and Proxmox replication series, are kept."
        ))
    var breakChains = false

    @Flag(
        name: .customLong("ignore-in-use"),
        help: ArgumentHelp(
            "Also delete snapshots that running processes hold (an open file, a working directory, a memory map).",
            discussion:
                "Without it, a snapshot a process holds (a backup reading it) is kept, named or selected, with the process's PID and command; so is every snapshot a process carve cannot see into might hold (without CAP_SYS_PTRACE, in a container)."
        ))
    var ignoreInUse = false

    @Option(
        name: .customLong("lock-timeout"), parsing: .unconditional,
        help: ArgumentHelp(
            "Wait up to this many seconds for another carve that is deleting (default 0: exit 75 at once).",
            valueName: "seconds"))
    var lockTimeout: Double = 0

    @Option(
        name: .customLong("max-count"), parsing: .unconditional,
        help: ArgumentHelp(
            "Delete at most N snapshots this run, oldest first (thin: in its order); the rest wait for a later run.",
            valueName: "n"))
    var maxCount: Int?

    @Flag(
        help: ArgumentHelp(
            "With --dry-run: also list the files only the snapshots to delete hold, largest first, as 'carve snapshots pinned' does.",
            discussion:
                "The first \(PinnedFilesView.screenful) files in the text (every file in JSON, under \"pinned\"); they add up to the exact data reclaim. Reads the trees of the snapshots to delete; needs exact sizes, which it reads when quota sizes were used."
        ))
    var pinned = false

    @Flag(help: "Also write one audit line per deleted snapshot to syslog.")
    var syslog = false

    @Flag(name: [.short, .long], help: "Print sizes in bytes (the plan's table, the estimate, the summary).")
    var bytes = false

    @Flag(name: .customLong("json"), help: "Print the result as JSON on stdout.")
    var jsonFlag = false

    @OptionGroup var report: ReportOptions

    // Read before parsing (OptionsFile.expand): declared so that help, completion and
    // the man page show it.
    @Option(
        name: .customLong("options-file"),
        help: ArgumentHelp(
            "Read options from FILE, one a line (with its value), # comments: a policy, as carve-prune@.service uses.",
            valueName: "file"), completion: .file())
    var optionsFile: String?

    var json: Bool { report.json(jsonFlag) }

    @Option(
        help: ArgumentHelp(
            "How to estimate what comes back: auto (default: quota when quotas are on and consistent, else exact; none for named snapshots deleted with --yes alone, which print no estimate), quota, exact (reads the extents of the trees not cached) or none.",
            valueName: "mode"))
    var sizes: SizeMode?

    var rules: DeletionRules {
        DeletionRules(
            recursive: recursive, includeImportant: includeImportant, breakChains: breakChains, ignoreInUse: ignoreInUse
        )
    }

    /// Checked in run(), after the root check, so that errors keep their exit codes.
    func check() throws(UsageError) {
        guard lockTimeout >= 0, lockTimeout.isFinite else {
            throw UsageError("invalid value '\(lockTimeout)' for --lock-timeout: must be 0 or more seconds")
        }
        if dryRun && wait { throw UsageError("--dry-run and --wait conflict: a dry run deletes nothing to wait for") }
        if pinned && !dryRun {
            throw UsageError("--pinned goes with --dry-run: it shows what the plan would free, file by file")
        }
        try DeletionLimit.check(maxCount)
    }
}
