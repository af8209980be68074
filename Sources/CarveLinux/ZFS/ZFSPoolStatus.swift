import CarveCore

/// A pool's layout from `zpool status -P POOL` (full device paths, where the dialect has
/// `-P`), for `check` on one of its devices.
public struct ZFSPoolStatus: ZFSPoolReading {
    let tool: ZFSTool

    public init(tool: ZFSTool = ZFSTool()) { self.tool = tool }

    public func layout(ofPool name: String) throws -> ZFSPoolLayout {
        let paths = try tool.currentDialect().poolStatusPaths
        return try ZFSPoolLayout.parse(status: tool.output(["zpool", "status"] + (paths ? ["-P"] : []) + [name]))
    }
}
