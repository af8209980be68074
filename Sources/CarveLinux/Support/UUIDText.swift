import CarveCore

/// A btrfs UUID (16 bytes) as the usual 8-4-4-4-12 lowercase text; nil when all zero.
func uuidString<T>(_ bytes: T) -> String? {
    withUnsafeBytes(of: bytes) { uuidText($0) }
}

/// The first 16 bytes of `raw` as UUID text; nil when all zero or too short.
func uuidText(_ raw: UnsafeRawBufferPointer) -> String? { SubvolumeUUID(bytes: raw)?.text }

/// A subvolume's UUID from libbtrfsutil's 16 bytes; nil when they are all zero.
func subvolumeUUID<T>(_ bytes: T) -> SubvolumeUUID? {
    withUnsafeBytes(of: bytes) { SubvolumeUUID(bytes: $0) }
}
