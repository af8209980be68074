import Foundation

// libFuzzer entry points for every CarveCore parser that reads outside input.
// Built by Scripts/fuzz together with the CarveCore sources into one binary
// (never part of the shipped product); CARVE_FUZZ_TARGET picks the parser.
// Besides "does not crash, hang or leak", each target checks a cheap invariant.

enum FuzzTarget: String, CaseIterable {
    case size, duration, date, snapshotName = "snapshot-name", snapperInfo = "snapper-info"
    case snapperConfig = "snapper-config", timeshiftInfo = "timeshift-info", btrbkName = "btrbk-name"
    case mountinfo, udev

    static let selected: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["CARVE_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            let known = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("CARVE_FUZZ_TARGET must be one of: \(known)\n".utf8))
            exit(64)
        }
        return target
    }()

    func run(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        let utc = TimeZone(identifier: "UTC")!
        switch self {
        case .size:
            if let bytes = try? ByteSize.parse(text), text.allSatisfy(\.isASCIIDigit) {
                precondition(UInt64(text) == bytes, "plain digits parse to themselves")
            }
        case .duration: _ = try? TimeSpan.parse(text)
        case .date: _ = try? DateArgument.parse(text, timeZone: utc)
        case .snapshotName: _ = try? SnapshotName.parse(text)
        case .snapperInfo: _ = try? SnapperInfo.parse(data, config: "root")
        case .snapperConfig:
            _ = try? SnapperConfig.parse(name: "root", text: text)
            _ = try? SnapperConfig.configNames(fromSysconfig: text)
        case .timeshiftInfo:
            _ = try? TimeshiftInfo.parse(data, name: "2026-11-02_12-00-01")
            _ = TimeshiftInfo.date(fromName: text, timeZone: utc)
        case .btrbkName: _ = BtrbkName.parse(text, timeZone: utc)
        case .mountinfo:
            if let entries = try? MountInfo.parse(text) {
                precondition(entries.count <= text.split(separator: "\n").count, "at most one entry a line")
            }
        case .udev:
            let decoded = UdevEncoding.decode(text)
            precondition(decoded.utf8.count <= text.utf8.count * 3, "decoding never grows a value much")
        }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    FuzzTarget.selected.run(data)
    return 0
}
