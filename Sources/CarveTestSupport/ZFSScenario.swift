/// The snapshot names of the ZFS tests' pool (the "done when"), on zfs-fuse and in
/// the OpenZFS transcripts alike (`Tests/Fixtures/zfs/openzfs-transcripts.py` writes the same).
public enum ZFSScenario {
    /// zfs-auto-snapshot's, in `DATASET/auto`: three dailies and two hourlies.
    public static let auto = [
        "zfs-auto-snap_daily-2026-11-20-0000", "zfs-auto-snap_daily-2026-11-21-0000",
        "zfs-auto-snap_daily-2026-11-22-0000", "zfs-auto-snap_hourly-2026-11-22-0900",
        "zfs-auto-snap_hourly-2026-11-22-1000",
    ]
    /// sanoid's, in `DATASET/sanoid`: three dailies and an hourly.
    public static let sanoid = [
        "autosnap_2026-11-20_00:00:01_daily", "autosnap_2026-11-21_00:00:01_daily",
        "autosnap_2026-11-22_00:00:01_daily", "autosnap_2026-11-22_09:00:01_hourly",
    ]
    /// syncoid's, in `DATASET/plain`: the newer is the replication base.
    public static let syncoid = [
        "syncoid_host1_2026-11-21:00:00:00-GMT00:00", "syncoid_host1_2026-11-22:00:00:00-GMT00:00",
    ]
}
