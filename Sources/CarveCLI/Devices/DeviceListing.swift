import CarveCore

/// What `carve devices` lists: the whole tree, or the named devices with what sits on them.
enum DeviceListing {
    static func forest(of source: any DeviceSource, paths: [String]) throws -> [DeviceTreeNode] {
        // Every named path is checked before anything is printed.
        guard !paths.isEmpty else { return DeviceTree.build(try source.devices()) }
        let named = try paths.map { try source.device(at: $0).name }
        return DeviceTree.build(try source.devices(under: named), roots: named)
    }

    /// The stderr line saying which shown columns stayed empty because a device could
    /// not be opened for probing; nil when none.
    static func rootNote(_ deniedFields: [String], shown: [String], isRoot: Bool) -> String? {
        let missing = deniedFields.filter(shown.contains)
        guard !missing.isEmpty else { return nil }
        let fields = missing.joined(separator: ", ")
        return isRoot
            ? "\(fields) missing where a device could not be opened for probing (operation not permitted)"
            : "not root: \(fields) missing where udev has no record (probing a device needs root)"
    }
}
