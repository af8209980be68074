/// snapper's pre/post pairs: a `post` snapshot names its `pre` by number. Deleting one
/// half leaves snapper a dangling half (`snapper status` and `undochange` need both),
/// so a selection that takes one half and not the other keeps both, and says so.
struct SnapperPairs {
    /// Positions of the two halves of each pair present, by config and pre number.
    private var halves: [PairKey: (pre: Int?, post: Int?)] = [:]

    struct PairKey: Hashable { var config: String; var pre: Int }

    init(_ subvolumes: [Volume]) {
        for index in subvolumes.indices {
            let metadata = subvolumes[index].metadata
            guard metadata.manager == .snapper, let config = metadata.config else { continue }
            if metadata.type == "pre", let number = metadata.number {
                halves[PairKey(config: config, pre: number), default: (nil, nil)].pre = index
            } else if metadata.type == "post", let pre = metadata.preNumber {
                halves[PairKey(config: config, pre: pre), default: (nil, nil)].post = index
            }
        }
    }

    var hasPairs: Bool { !halves.isEmpty }

    /// The partner of the snapshot at `index`, when both halves exist.
    func partner(of index: Int, in subvolumes: [Volume]) -> Int? {
        let metadata = subvolumes[index].metadata
        guard metadata.manager == .snapper, let config = metadata.config else { return nil }
        let pre = metadata.type == "pre" ? metadata.number : metadata.type == "post" ? metadata.preNumber : nil
        guard let pre, let pair = halves[PairKey(config: config, pre: pre)], let first = pair.pre,
            let second = pair.post
        else { return nil }
        return first == index ? second : first
    }

    /// `selected` without the halves whose partner is not selected, and those pairs as
    /// (the half that was selected, its partner).
    func keepingTogether(_ selected: [Int], in subvolumes: [Volume]) -> (selected: [Int], split: [(Int, Int)]) {
        guard !halves.isEmpty else { return (selected, []) }
        let chosen = Set(selected)
        var split: [(Int, Int)] = []
        let kept = selected.filter { index in
            guard let partner = partner(of: index, in: subvolumes), !chosen.contains(partner) else { return true }
            split.append((index, partner))
            return false
        }
        return (kept, split)
    }

    /// "root:5/6: only 6 is selected; both kept (--split-pairs deletes one half)".
    static func note(_ pair: (Int, Int), in subvolumes: [Volume]) -> String {
        let (chosen, other) = (subvolumes[pair.0].metadata, subvolumes[pair.1].metadata)
        let pre = chosen.type == "pre" ? chosen : other, post = chosen.type == "pre" ? other : chosen
        return
            "snapper pre/post pair \(pre.config ?? ""):\(pre.number ?? 0)/\(post.number ?? 0): only \(chosen.number ?? 0) is selected; "
            + "both are kept (--split-pairs deletes one half)"
    }
}
