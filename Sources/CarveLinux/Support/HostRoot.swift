/// Where carve reads the system's own files: /sys, /proc, /etc and /run (and finds
/// machinectl's image directories). "/" on a
/// machine; a fixture tree in tests, so that one tree drives a whole test. As with
/// util-linux's path prefix, the root is put in front of the absolute path and
/// never resolved: a fixture's symlinks stay inside it only if they are relative.
///
/// What a device or a snapshot is called (/dev/sda1, /mnt/.snapshots/3) is not
/// under the root: those are the names carve shows and the paths it acts on.
public struct HostRoot: Sendable, Hashable {
    /// The root without its trailing slash: "" for "/".
    public let prefix: String

    public static let system = HostRoot()

    public init(_ root: String = "/") {
        var root = Substring(root)
        while root.hasSuffix("/") { root = root.dropLast() }
        prefix = String(root)
    }

    /// `absolute` (which starts with "/") under this root.
    public func path(_ absolute: String) -> String { prefix + absolute }

    /// /sys/class/block: one entry per block device, partitions as links into their disk.
    public var blockClass: String { path("/sys/class/block") }
    /// This process's mount table (proc(5)).
    public var mountInfo: String { path("/proc/self/mountinfo") }
    /// The active swap areas.
    public var swaps: String { path("/proc/swaps") }
    /// One directory per process, for telling whether a daemon runs.
    public var processes: String { path("/proc") }
    /// systemd-udevd's control socket: it exists once udevd has run.
    public var udevControl: String { path("/run/udev/control") }
    /// The deletion lock.
    public var deletionLock: String { path("/run/lock/carve.lock") }
    /// snapper's configs.
    public var snapperConfigs: String { path("/etc/snapper/configs") }
    /// The files that list snapper's configs by name (SNAPPER_CONFIGS=), in the
    /// order snapper reads them.
    public var snapperSysconfig: [String] { ["/etc/conf.d/snapper", "/etc/default/snapper"].map(path) }
    /// Where machinectl and systemd-nspawn look for machine images, in their order
    /// (systemd 252's image search path); under the root like the rest, so that a fixture
    /// tree can hold a machines btrfs mounted at its `var/lib/machines`.
    public var machineImageDirectories: [String] {
        [
            "/etc/machines", "/run/machines", "/var/lib/machines", "/var/lib/container", "/usr/local/lib/machines",
            "/usr/lib/machines",
        ].map(path)
    }
}
