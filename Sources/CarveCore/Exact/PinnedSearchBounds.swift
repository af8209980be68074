/// How much of a member's tree must be read to find the references to the extents it
/// holds first (`PinnedExtents`): the tree blocks written in or after a transaction,
/// which the tree search can skip to (`btrfs subvolume find-new` does the same).
///
/// An extent a member T holds first is held by no subvolume that comes before T in the
/// map, the subvolumes created before it among them. A snapshot V of T's source taken
/// before T (read-only and unchanged since: its generation is still the one it was made
/// in) held what the source held then, so every reference T has and V lacks was written
/// into the source after V was taken: in a tree block of V's transaction or later. A
/// read-only subvolume P that T was taken of holds what T held when it was made, so
/// the same goes for P's last transaction. The bound is the latest such transaction;
/// 0 (the whole tree) when T has none, as the oldest snapshot of a series.
///
/// A wrong bound could only hide references, never invent them: the reader counts
/// what it did not find and reads those trees whole.
public enum PinnedSearchBounds {
    /// Per member of `trees`: the first transaction whose tree blocks are read; 0 for all.
    public static func bounds(for trees: [UInt64], in subvolumes: [Volume]) -> [UInt64: UInt64] {
        var byID: [UInt64: Int] = [:]
        var byUUID: [SubvolumeUUID: Int] = [:]
        var siblings: [SubvolumeUUID: [Int]] = [:]
        for index in subvolumes.indices {
            let subvolume = subvolumes[index]
            byID[subvolume.id] = index
            byUUID[subvolume.uuid] = index
            if let parent = subvolume.parentUUID, isUnchanged(subvolume) { siblings[parent, default: []].append(index) }
        }
        var result: [UInt64: UInt64] = [:]
        for tree in trees {
            guard let index = byID[tree], let parent = subvolumes[index].parentUUID else {
                result[tree] = 0
                continue
            }
            let member = subvolumes[index]
            var bound: UInt64 = 0
            for sibling in siblings[parent] ?? [] {
                let earlier = subvolumes[sibling]
                guard earlier.id < member.id, earlier.createdGeneration <= member.createdGeneration else { continue }
                bound = max(bound, earlier.createdGeneration)
            }
            if let source = byUUID[parent], subvolumes[source].readOnly,
                subvolumes[source].generation <= member.createdGeneration, subvolumes[source].id < member.id
            {
                bound = max(bound, subvolumes[source].generation)
            }
            result[tree] = bound
        }
        return result
    }

    /// Whether a member's `extents` (those it holds first) are better looked up one by
    /// one by their back references (BTRFS_IOC_LOGICAL_INO, about a tree leaf's worth of
    /// work each, measured on 200,000 files) than by reading its tree (`treeBytes`, the
    /// scan's estimate of it): when there are no more of them than leaves in the tree. A
    /// snapshot of a series pins a few files among many; one that alone holds a deleted
    /// tree of small files is read.
    public static func looksUpBackReferences(extents: Int, treeBytes: UInt64?, nodeSize: UInt64) -> Bool {
        guard let treeBytes, nodeSize > 0 else { return false }
        return UInt64(extents) <= treeBytes / nodeSize
    }

    /// Read-only and not written since it was made: it holds what its source held then.
    static func isUnchanged(_ subvolume: Volume) -> Bool {
        subvolume.readOnly && subvolume.createdGeneration > 0 && subvolume.generation <= subvolume.createdGeneration
    }
}
