import CarveCore
import Testing

/// A policy file as root reads it: the walk and the rule on a tree of fake entries
/// (owner, mode, symlink targets), as `fstat` and `readlink` would give them.
@Suite struct RootPolicyPathTests {
    /// A tree of entries by absolute path; a handle is the entry's path.
    struct Tree: PathStepping {
        var entries: [String: (step: PathStep, target: String?)] = [
            "/": (PathStep(.directory, owner: 0, mode: 0o755), nil),
            "/etc": (PathStep(.directory, owner: 0, mode: 0o755), nil),
            "/etc/carve": (PathStep(.directory, owner: 0, mode: 0o755), nil),
            "/etc/carve/prune": (PathStep(.directory, owner: 0, mode: 0o755), nil),
            "/etc/carve/prune/home.conf": (PathStep(.regularFile, owner: 0, mode: 0o644), nil),
            "/tmp": (PathStep(.directory, owner: 0, mode: 0o1777), nil),
            "/tmp/root": (PathStep(.directory, owner: 0, mode: 0o700), nil),
            "/tmp/root/p.conf": (PathStep(.regularFile, owner: 0, mode: 0o600), nil),
            "/home": (PathStep(.directory, owner: 0, mode: 0o755), nil),
            "/home/u": (PathStep(.directory, owner: 1000, mode: 0o755), nil),
            "/home/u/p.conf": (PathStep(.regularFile, owner: 0, mode: 0o644), nil),
        ]

        mutating func add(_ path: String, _ step: PathStep, target: String? = nil) {
            entries[path] = (step, target)
        }

        func root() throws -> (handle: String, step: PathStep) { ("/", entries["/"]!.step) }

        func open(_ name: String, in directory: String) throws -> (handle: String, step: PathStep)? {
            let path: String
            if name == ".." {
                path = PathText.parent(of: directory)
            } else {
                path = directory == "/" ? "/" + name : directory + "/" + name
            }
            return entries[path].map { (path, $0.step) }
        }

        func target(of link: String) throws -> String { entries[link]!.target! }
    }

    func resolve(_ path: String, in tree: Tree = Tree()) throws -> String? {
        try RootPolicyPath.resolve(path, with: tree)?.file
    }

    func refusal(_ path: String, in tree: Tree) -> String? {
        do {
            _ = try resolve(path, in: tree)
            return nil
        } catch let error as UsageError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test func aRootOnlyFileOnARootOnlyPathIsRead() throws {
        #expect(try resolve("/etc/carve/prune/home.conf") == "/etc/carve/prune/home.conf")
        #expect(try resolve("//etc/./carve/prune/../prune/home.conf") == "/etc/carve/prune/home.conf")
        #expect(try resolve("/etc/carve/prune/none.conf") == nil)
        // A file where a directory is due: no such file, as open(2) says ENOTDIR.
        #expect(try resolve("/etc/carve/prune/home.conf/x") == nil)
    }

    /// /tmp: writable by all, but sticky, so only root can rename root's directory there.
    @Test func aStickyDirectoryMayBeWritableByOthers() throws {
        #expect(try resolve("/tmp/root/p.conf") == "/tmp/root/p.conf")
        var tree = Tree()
        tree.add("/tmp/user", PathStep(.directory, owner: 1000, mode: 0o700))
        tree.add("/tmp/user/p.conf", PathStep(.regularFile, owner: 0, mode: 0o644))
        #expect(refusal("/tmp/user/p.conf", in: tree)?.contains("/tmp/user is owned by uid 1000 (mode 0700)") == true)
        // Sticky does not excuse a file: a group-writable file stays refused.
        tree.add("/tmp/root/g.conf", PathStep(.regularFile, owner: 0, mode: 0o1664))
        #expect(refusal("/tmp/root/g.conf", in: tree)?.contains("it is writable by its group") == true)
    }

    @Test(arguments: [
        (
            "/etc/carve/prune", PathStep(.directory, owner: 0, mode: 0o775),
            "/etc/carve/prune is writable by its group (owner uid 0, mode 0775)"
        ),
        (
            "/etc/carve", PathStep(.directory, owner: 0, mode: 0o757),
            "/etc/carve is writable by others (owner uid 0, mode 0757)"
        ),
        (
            "/etc/carve/prune/home.conf", PathStep(.regularFile, owner: 1000, mode: 0o644),
            "it is owned by uid 1000 (mode 0644)"
        ),
        (
            "/etc/carve/prune/home.conf", PathStep(.regularFile, owner: 0, mode: 0o666),
            "it is writable by its group (owner uid 0, mode 0666)"
        ),
    ])
    func aStepNotRootsAloneIsRefusedNamingOwnerAndMode(place: String, step: PathStep, reason: String) {
        var tree = Tree()
        tree.add(place, step)
        #expect(
            refusal("/etc/carve/prune/home.conf", in: tree)
                == "/etc/carve/prune/home.conf: not read as root: \(reason); "
                + "a policy file and every directory above it must be root's and writable by root alone")
    }

    @Test func aSymlinkIsFollowedOnlyWhereRootAloneMadeItAndOnlyToWhereRootAloneWrites() throws {
        var tree = Tree()
        // /etc/carve/prune/link.conf → the root-only file: read.
        tree.add("/etc/carve/prune/link.conf", PathStep(.symlink, owner: 0, mode: 0o777), target: "home.conf")
        #expect(try resolve("/etc/carve/prune/link.conf", in: tree) == "/etc/carve/prune/home.conf")
        tree.add("/etc/carve/abs.conf", PathStep(.symlink, owner: 0, mode: 0o777), target: "/tmp/root/p.conf")
        #expect(try resolve("/etc/carve/abs.conf", in: tree) == "/tmp/root/p.conf")
        // → a root-owned file in a user's directory: refused at that directory.
        tree.add("/etc/carve/prune/evil.conf", PathStep(.symlink, owner: 0, mode: 0o777), target: "/home/u/p.conf")
        #expect(
            refusal("/etc/carve/prune/evil.conf", in: tree)?.hasPrefix(
                "/etc/carve/prune/evil.conf: not read as root: /home/u, reached through a symlink, is owned by uid 1000"
            ) == true)
        // A link another user made in a sticky directory: refused itself.
        tree.add(
            "/tmp/planted.conf", PathStep(.symlink, owner: 1000, mode: 0o777), target: "/etc/carve/prune/home.conf")
        #expect(refusal("/tmp/planted.conf", in: tree)?.contains("it is owned by uid 1000") == true)
        // Links that go round end as the kernel's do.
        tree.add("/etc/carve/loop", PathStep(.symlink, owner: 0, mode: 0o777), target: "loop")
        #expect(refusal("/etc/carve/loop", in: tree) == "/etc/carve/loop: too many levels of symbolic links")
    }

    @Test func onlyARegularFileIsAPolicy() {
        var tree = Tree()
        tree.add("/etc/carve/fifo", PathStep(.other, owner: 0, mode: 0o600))
        #expect(refusal("/etc/carve/fifo", in: tree) == "/etc/carve/fifo is not a regular file")
        #expect(refusal("/etc/carve/prune", in: tree) == "/etc/carve/prune is not a regular file")
    }
}
