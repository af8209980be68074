/// Equality, hashing and coding see the map's content, not the order the table
/// happened to store it in.
extension ExtentMap: Hashable, Codable {
    private enum CodingKeys: String, CodingKey { case subvolumeIDs, extents, inlineBytes }
    private struct Entry: Codable { var key: ExtentKey; var set: SubvolumeSet }

    private var sortedEntries: [Entry] {
        var entries: [Entry] = []
        entries.reserveCapacity(extentCount)
        forEachExtent { entries.append(Entry(key: $0, set: $1)) }
        return entries.sorted { $0.key < $1.key }
    }

    public static func == (left: ExtentMap, right: ExtentMap) -> Bool {
        guard left.subvolumeIDs == right.subvolumeIDs, left.inlineBytes == right.inlineBytes,
            left.extentCount == right.extentCount
        else { return false }
        var same = true
        left.forEachExtent { key, set in if same && right.set(of: key) != set { same = false } }
        return same
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(subvolumeIDs)
        hasher.combine(inlineBytes)
        hasher.combine(extentCount)
        hasher.combine(totalBytes)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(subvolumes: try container.decode([UInt64].self, forKey: .subvolumeIDs))
        for entry in try container.decode([Entry].self, forKey: .extents) { restore(entry.key, set: entry.set) }
        for (id, bytes) in try container.decode([UInt64: UInt64].self, forKey: .inlineBytes) {
            addInline(subvolume: id, bytes: bytes)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(subvolumeIDs, forKey: .subvolumeIDs)
        try container.encode(sortedEntries, forKey: .extents)
        try container.encode(inlineBytes, forKey: .inlineBytes)
    }
}
