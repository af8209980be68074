import CarveTestSupport

/// Random changes to the files of a subvolume `data`, drawn from a seed, as shell
/// commands run from the filesystem's mountpoint: new files (small ones stored inline),
/// files rewritten whole, deletions, renames across directories, hard links, reflinks
/// (`cp --reflink=always`) into the subvolume `other`, directories made and removed
/// whole, read-only snapshots taken into `snaps/` and deleted; with `partial`, also
/// partial overwrites, appends, truncations, holes punched (`fallocate -p`) and reflinks
/// inside `data` itself.
///
/// `btrfs filesystem du` counts the bytes a file references (FIEMAP's lengths), and an
/// extent referenced twice in one subvolume as shared; carve counts what deleting frees,
/// each extent whole, once per subvolume. They agree while every extent is referenced
/// whole and once, which the changes without `partial` keep.
struct FileChurn {
    var random: SplitMix
    let partial: Bool
    private(set) var files: [String] = []
    private(set) var directories = ["data"]
    private(set) var snapshots: [String] = []
    private var made = 0

    init(seed: UInt64, partial: Bool) {
        random = SplitMix(seed: seed)
        self.partial = partial
    }

    private mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }
    private mutating func name(in directory: String) -> String {
        made += 1
        return "\(directory)/f\(made)"
    }
    private mutating func size() -> Int { pick([700, 1800, 5000, 40_000, 300_000, 1_500_000]) }
    private mutating func removeFile() -> String? {
        guard !files.isEmpty else { return nil }
        return files.remove(at: Int.random(in: 0..<files.count, using: &random))
    }

    /// `count` changes, one line each; a line may fail harmlessly (`|| true` where a
    /// file may be shorter than the range it names).
    mutating func round(_ count: Int) -> [String] {
        var lines: [String] = []
        for _ in 0..<count { if let line = change() { lines.append(line) } }
        return lines
    }

    private mutating func change() -> String? {
        let roll = Int.random(in: 0..<100, using: &random)
        let file = files.isEmpty ? nil : pick(files)
        switch roll {
        case 0..<22:
            let path = name(in: pick(directories))
            files.append(path)
            return "head -c \(size()) /dev/urandom > \(path)"
        case 22..<32 where partial:
            guard let file else { return nil }
            let blocks = Int.random(in: 0..<80, using: &random)
            return
                "dd if=/dev/urandom of=\(file) bs=4K count=\(Int.random(in: 1...8, using: &random)) seek=\(blocks) conv=notrunc status=none"
        case 22..<38:
            guard let file else { return nil }
            return partial ? "head -c \(size()) /dev/urandom >> \(file)" : "head -c \(size()) /dev/urandom > \(file)"
        case 38..<46:
            guard let file else { return nil }
            return "truncate -s \(partial ? pick([0, 1000, 4096, 20_000, 100_000, 2_000_000]) : 0) \(file)"
        case 46..<53 where partial:
            guard let file else { return nil }
            let offset = Int.random(in: 0..<64, using: &random) * 4096
            return "fallocate -p -o \(offset) -l \(Int.random(in: 1...32, using: &random) * 4096) \(file) || true"
        case 53..<64:
            return removeFile().map { "rm -f \($0)" }
        case 64..<70:
            guard let old = removeFile() else { return nil }
            let path = name(in: pick(directories))
            files.append(path)
            return "mv \(old) \(path)"
        case 70..<74:
            guard let file else { return nil }
            let path = name(in: pick(directories))
            files.append(path)
            return "ln \(file) \(path)"
        case 74..<80:
            guard let file else { return nil }
            made += 1
            return "cp --reflink=always \(file) other/r\(made)"
        case 46..<53:
            return removeFile().map { "rm -f \($0)" }
        case 80..<85 where partial:
            guard let file else { return nil }
            let path = name(in: pick(directories))
            files.append(path)
            return "cp --reflink=always \(file) \(path)"
        case 85..<89:
            made += 1
            let directory = "\(pick(directories))/d\(made)"
            directories.append(directory)
            return "mkdir \(directory)"
        case 89..<91:
            guard directories.count > 1 else { return nil }
            let directory = directories.remove(at: Int.random(in: 1..<directories.count, using: &random))
            directories.removeAll { $0.hasPrefix(directory + "/") }
            files.removeAll { $0.hasPrefix(directory + "/") }
            return "rm -rf \(directory)"
        case 91..<97:
            made += 1
            snapshots.append("snaps/s\(made)")
            return "btrfs -q subvolume snapshot -r data snaps/s\(made)"
        default:
            guard snapshots.count > 2 else { return nil }
            let snapshot = snapshots.remove(at: Int.random(in: 0..<snapshots.count, using: &random))
            return "btrfs -q subvolume delete \(snapshot) >/dev/null"
        }
    }
}
