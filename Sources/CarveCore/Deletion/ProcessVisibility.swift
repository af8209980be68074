/// What decides whether carve sees every process that could hold a snapshot: its PID
/// namespace, the options of its /proc mount, its capabilities. Read from /proc by the
/// Linux side, judged here.
public enum ProcessVisibility {
    /// The host's PID namespace: the kernel gives the initial namespaces fixed inode
    /// numbers (PROC_PID_INIT_INO), so `readlink /proc/self/ns/pid` names it.
    public static let hostPIDNamespace = "pid:[4026531836]"

    /// Why some processes cannot even be listed, or nil when all can. `ownPIDNamespace`:
    /// the target of /proc/self/ns/pid (nil when unknown); `procMount`: the super options
    /// of the proc mount; `canTraceAll`: carve has CAP_SYS_PTRACE (nil when unknown).
    public static func blindness(ownPIDNamespace: String?, procMount: [String]?, canTraceAll: Bool?) -> String? {
        if let namespace = ownPIDNamespace, namespace.hasPrefix("pid:"), namespace != hostPIDNamespace {
            return "carve runs in a PID namespace other than the host's, so processes outside it are not in its /proc"
        }
        // hidepid=1 (noaccess) lists every process and denies its directories, which the
        // scan sees per process; 2 (invisible) and 4 (ptraceable) leave processes out.
        let hidepid = procMount?.first { $0.hasPrefix("hidepid=") }.map { String($0.dropFirst(8)) }
        if let hidepid, ["2", "invisible", "4", "ptraceable"].contains(hidepid), canTraceAll != true {
            return "/proc is mounted with hidepid=\(hidepid), which hides the processes carve may not trace"
        }
        return nil
    }
}

/// `/proc/PID/status`, for the effective capabilities.
public struct ProcStatus: Sendable {
    /// CAP_SYS_PTRACE's bit (linux/capability.h).
    public static let capSysPtrace = 19
    private let effective: UInt64?

    public init(_ text: String) {
        let line = text.split(separator: "\n").first { $0.hasPrefix("CapEff:") }
        effective = line.flatMap { UInt64(String($0.dropFirst(7)).trimmingSpaces, radix: 16) }
    }

    /// Whether the capability is effective; nil when the file did not say.
    public func hasCapability(_ bit: Int) -> Bool? { effective.map { $0 & (1 << UInt64(bit)) != 0 } }
}

/// `/proc/PID/stat`: `PID (COMM) STATE PPID PGRP SESSION TTY TPGID FLAGS …`, where COMM
/// may hold spaces and parentheses, so fields are counted from the last ')'.
public enum ProcStat {
    /// PF_KTHREAD (include/linux/sched.h).
    static let kernelThreadFlag: UInt64 = 0x0020_0000

    /// True for a process that cannot hold a user's file: a kernel thread (PF_KTHREAD in
    /// its flags), or a zombie or dead task (state Z or X: it has closed its files and
    /// left its directories). Both are denied to a caller with fewer capabilities.
    public static func holdsNothing(_ bytes: [UInt8]) -> Bool {
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return false }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 6 else { return false }
        if fields[0].elementsEqual("Z".utf8) || fields[0].elementsEqual("X".utf8) { return true }
        guard let flags = UInt64(String(decoding: fields[6], as: UTF8.self)) else { return false }
        return flags & kernelThreadFlag != 0
    }
}
