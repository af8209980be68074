import CarveCore
import CarveTestSupport
@testable import CarveLinux
import Foundation
import Glibc
import PropertyBased
import Testing

/// What CarveLinux does where Foundation used to: the local zone, child processes,
/// threads. Each against what it replaced or against the system itself.
@Suite struct PlatformSupportTests {
    @Test func theLocalZoneIsTheOneFoundationAndDateRead() async throws {
        await propertyCheck(input: Gen.int64(in: 0...4_102_444_799)) { seconds in
            let instant = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(
                TimeZone.current.secondsFromGMT(for: instant)
                    == Foundation.TimeZone.current.secondsFromGMT(for: instant.foundation))
        }
        let printed = try Shell.check(["date", "-d", "@1793534401", "+%z"]).trimmingWhitespace
        let offset = TimeZone.current.secondsFromGMT(for: Date(timeIntervalSince1970: 1_793_534_401))
        let sign = offset < 0 ? "-" : "+", minutes = abs(offset) / 60
        #expect(printed == sign + String(format: "%02d%02d", minutes / 60, minutes % 60))
    }

    @Test func nowIsTheSystemClock() {
        let ours = Date.now.timeIntervalSince1970
        let theirs = Foundation.Date().timeIntervalSince1970
        #expect(abs(ours - theirs) < 5)
    }

    @Test func aChildGetsItsArgumentsEnvironmentAndInputAndNothingElse() throws {
        let held = open("/proc/self/mountinfo", O_RDONLY)
        defer { close(held) }
        let script = #"printf '%s|%s|' "$1" "$CARVE_TEST_VALUE"; cat; echo oops >&2; ls /proc/self/fd | wc -l; exit 3"#
        let run = try ChildProcess.run(
            ["sh", "-c", script, "sh", "first argument"], input: Array("from stdin|".utf8),
            environment: ["CARVE_TEST_VALUE": "set"])
        #expect(run.status == 3)
        // 0, 1, 2, and the one ls opens to read the directory: the held descriptor is not inherited.
        #expect(String(decoding: run.stdout, as: UTF8.self) == "first argument|set|from stdin|4\n")
        #expect(String(decoding: run.stderr, as: UTF8.self) == "oops\n")
    }

    @Test func aMissingToolIsExit127AndToolRunSaysWhichTool() throws {
        #expect(try ChildProcess.run(["carve-no-such-tool"]).status == 127)
        #expect(throws: RuntimeError.self) { try ToolRun.output(["carve-no-such-tool", "--info"]) }
    }

    @Test func aKilledChildReportsTheSignal() throws {
        #expect(try ChildProcess.run(["sh", "-c", "kill -9 $$"]).status == 9)
    }

    @Test func everyIterationRunsOnceAndAllAtOnce() {
        let seen = Lock()
        nonisolated(unsafe) var counts = [Int](repeating: 0, count: 6)
        Threads.concurrentPerform(iterations: 6) { index in
            seen.withLock { counts[index] += 1 }
        }
        #expect(counts == [1, 1, 1, 1, 1, 1])
    }
}
