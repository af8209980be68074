import CarveCore
import Foundation

/// Small builders for subvolumes and filesystems in unit and CLI tests.
public enum SnapshotFixtures {
    /// 2026-11-01T00:00:00Z: fixtures count days back from here.
    public static let epoch = Date(timeIntervalSince1970: 1_793_491_200)

    /// A deterministic UUID string for a subvolume id.
    public static func uuid(_ id: UInt64) -> String {
        let hex = String(id, radix: 16)
        return "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex
    }

    /// The same UUID where a subvolume's is wanted.
    public static func uuid(_ id: UInt64) -> SubvolumeUUID { SubvolumeUUID(uuid(id) as String) }

    public static func filesystem(
        uuid: String = "f5c3e1d2-0000-4000-8000-000000000001", mountpoint: String = "/mnt",
        subvolumePath: String = "/", subvolumeID: UInt64 = 5
    ) -> Filesystem {
        Filesystem(
            uuid: uuid, devices: ["/dev/loop9"],
            mounts: [
                FilesystemMount(mountpoint: mountpoint, subvolumePath: subvolumePath, subvolumeID: subvolumeID)
            ])
    }

    /// A plain (non-snapshot) subvolume, e.g. the source of snapshots.
    public static func subvolume(_ id: UInt64, path: String, mountedAt mountpoint: String? = "/mnt") -> Volume {
        Volume(
            id: id, path: path, mountedPath: mountpoint.map { $0 + "/" + path }, uuid: uuid(id),
            created: epoch.addingTimeInterval(-400 * 86_400), readOnly: false, isSnapshot: false
        )
    }

    /// A read-only snapshot of `source`, created `daysAgo` days before `epoch`.
    public static func snapshot(
        _ id: UInt64, path: String, of source: Volume?, daysAgo: Double, metadata: ManagerMetadata = .plain,
        mountedAt mountpoint: String? = "/mnt", exclusive: UInt64? = nil, referenced: UInt64? = nil
    ) -> Volume {
        Volume(
            id: id, path: path, mountedPath: mountpoint.map { $0 + "/" + path }, uuid: uuid(id),
            parentUUID: source?.uuid ?? uuid(9_999), generation: id * 10,
            created: epoch.addingTimeInterval(-daysAgo * 86_400), readOnly: true, isSnapshot: true,
            metadata: metadata, sourceID: source?.id, sourcePath: source?.path,
            exclusive: exclusive, referenced: referenced
        )
    }
}
