import Foundation

/// One fixture tree standing for a whole host's /sys, /proc, /etc and /run: a disk
/// `carvefix` whose first partition is mounted at /srv/fix and whose second is an
/// active swap area, a snapper config `fix`, no udevd. Its devices have no size, so
/// nothing probes a /dev node that is not there.
public enum HostFixture {
    public static let disk = "sys/devices/virtual/block/carvefix"

    public static func make() throws -> String {
        try Integration.makeTree(
            [
                "\(disk)/dev": "250:0\n", "\(disk)/size": "0\n", "\(disk)/ro": "0\n", "\(disk)/removable": "0\n",
                "\(disk)/queue/rotational": "0\n", "\(disk)/queue/logical_block_size": "512\n",
                "\(disk)/carvefix1/dev": "250:1\n", "\(disk)/carvefix1/size": "0\n",
                "\(disk)/carvefix1/partition": "1\n",
                "\(disk)/carvefix1/start": "2048\n", "\(disk)/carvefix1/ro": "0\n",
                "\(disk)/carvefix2/dev": "250:2\n", "\(disk)/carvefix2/size": "0\n",
                "\(disk)/carvefix2/partition": "2\n",
                "\(disk)/carvefix2/start": "4096\n", "\(disk)/carvefix2/ro": "0\n",
                "proc/self/mountinfo": "36 1 250:1 / /srv/fix rw,relatime shared:1 - ext4 /dev/carvefix1 rw\n",
                "proc/swaps":
                    "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/dev/carvefix2 partition\t1024\t\t0\t\t-2\n",
                "proc/1/stat": "1 (init) S 0 1 1\n",
                "etc/default/snapper": "SNAPPER_CONFIGS=\"fix\"\n",
                "etc/snapper/configs/fix": "SUBVOLUME=\"/srv/fix\"\nFSTYPE=\"btrfs\"\n",
                "run/lock/.keep": "",
            ],
            links: [
                "sys/class/block/carvefix": "../../devices/virtual/block/carvefix",
                "sys/class/block/carvefix1": "../../devices/virtual/block/carvefix/carvefix1",
                "sys/class/block/carvefix2": "../../devices/virtual/block/carvefix/carvefix2",
            ])
    }
}
