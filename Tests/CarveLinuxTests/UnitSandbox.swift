import CarveTestSupport
import Foundation
import Testing

/// The privileges a shipped systemd unit gives carve, read from the unit file itself
/// (`CapabilityBoundingSet=`, `AmbientCapabilities=`, `NoNewPrivileges=`), and the
/// `setpriv` command that runs a program with exactly those: systemd is not PID 1 here,
/// so this is how a test runs carve as its timer would.
struct UnitSandbox {
    /// Capability names as setpriv spells them: `sys_admin`.
    var boundingSet: [String]
    var ambient: [String]
    var noNewPrivileges: Bool

    /// The unit in `Scripts/debian/`, as the package ships it.
    init(unit name: String) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let path = root.path + "/Scripts/debian/" + name
        let text = try String(contentsOfFile: path, encoding: .utf8)
        func values(_ key: String) -> [String] {
            text.split(separator: "\n").filter { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
        }
        func capabilities(_ key: String) throws -> [String] {
            let lines = values(key)
            // An inverted list (~CAP_…) or a reset would need systemd's merge rules: not used.
            try #require(lines.allSatisfy { !$0.hasPrefix("~") && !$0.isEmpty }, "\(name): \(key)=\(lines)")
            return lines.flatMap { $0.split(separator: " ") }.map { name in
                String(name.dropFirst(name.hasPrefix("CAP_") ? 4 : 0)).lowercased()
            }
        }
        boundingSet = try capabilities("CapabilityBoundingSet")
        ambient = try capabilities("AmbientCapabilities")
        noNewPrivileges = values("NoNewPrivileges").last == "yes"
        try #require(!boundingSet.isEmpty, "\(name) has no CapabilityBoundingSet=")
    }

    /// The same unit with one capability fewer.
    func without(_ capability: String) -> UnitSandbox {
        var copy = self
        copy.boundingSet.removeAll { $0 == capability }
        copy.ambient.removeAll { $0 == capability }
        return copy
    }

    /// `setpriv` options and `--`, before the program to run. Run as root, the program's
    /// permitted and effective sets are then exactly the bounding set, as under systemd.
    var prefix: [String] {
        var options = ["setpriv", "--bounding-set", (["-all"] + boundingSet.map { "+" + $0 }).joined(separator: ",")]
        if !ambient.isEmpty {
            let list = (["-all"] + ambient.map { "+" + $0 }).joined(separator: ",")
            options += ["--inh-caps", list, "--ambient-caps", list]
        }
        if noNewPrivileges { options.append("--no-new-privs") }
        return options + ["--"]
    }
}
