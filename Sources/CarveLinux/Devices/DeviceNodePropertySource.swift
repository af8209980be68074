import CarveCore
import Glibc

/// OWNER, GROUP and MODE of a device's node, from stat(2) of /dev/NAME as lsblk reads them.
public struct DeviceNodePropertySource: DevicePropertySource {
    public let name = "device node"
    public let fields: Set<DeviceField> = [.owner, .group, .mode]

    public init() {}

    public func properties(of device: BlockDevice, parent: BlockDevice?) throws -> DeviceProperties? {
        var info = stat()
        guard ByteText.withCString(device.path, { stat($0, &info) }) == 0 else { return nil }
        var found = DeviceProperties()
        if let user = getpwuid(info.st_uid) { found[.owner] = ByteText.decode(cString: user.pointee.pw_name) }
        if let group = getgrgid(info.st_gid) { found[.group] = ByteText.decode(cString: group.pointee.gr_name) }
        found[.mode] = DeviceNodePropertySource.modeString(UInt32(info.st_mode))
        return found
    }

    /// ls -l's ten characters (util-linux's xstrmode): "brw-rw----".
    static func modeString(_ mode: UInt32) -> String {
        let type: Character =
            switch mode & UInt32(S_IFMT) {
            case UInt32(S_IFBLK): "b"
            case UInt32(S_IFCHR): "c"
            case UInt32(S_IFDIR): "d"
            case UInt32(S_IFLNK): "l"
            case UInt32(S_IFIFO): "p"
            case UInt32(S_IFSOCK): "s"
            default: "-"
            }
        var text = String(type)
        let bits: [(UInt32, Character)] = [
            (0o400, "r"), (0o200, "w"), (0o100, "x"), (0o040, "r"), (0o020, "w"), (0o010, "x"),
            (0o004, "r"), (0o002, "w"), (0o001, "x"),
        ]
        for (bit, letter) in bits { text.append(mode & bit != 0 ? letter : "-") }
        // setuid, setgid and sticky as ls shows them.
        func mark(_ index: Int, _ bit: UInt32, _ on: Character, _ off: Character) {
            guard mode & bit != 0 else { return }
            var chars = Array(text)
            chars[index] = chars[index] == "x" ? on : off
            text = String(chars)
        }
        mark(3, 0o4000, "s", "S")
        mark(6, 0o2000, "s", "S")
        mark(9, 0o1000, "t", "T")
        return text
    }
}
