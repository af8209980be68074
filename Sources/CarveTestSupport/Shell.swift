import Foundation

/// Runs reference tools (lsblk, blkid, mkfs, btrfs, snapper, carve itself) for tests.
public enum Shell {
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    public struct Failure: Error, CustomStringConvertible {
        public let command: [String]
        public let result: Result
        public var description: String {
            "\(command.joined(separator: " ")) exited \(result.status): \(result.stderr)\(result.stdout)"
        }
    }

    /// Runs `arguments[0]` (looked up in PATH) and waits; never throws for a non-zero exit.
    @discardableResult
    public static func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        let inPipe = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : inPipe
        try process.run()
        if let input {
            inPipe.fileHandleForWriting.write(Data(input.utf8))
            try? inPipe.fileHandleForWriting.close()
        }
        // Read both pipes concurrently so a chatty child cannot fill one and block.
        let errData = LockedData()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { errData.set(errPipe.fileHandleForReading.readDataToEndOfFile()) }
        let outData = outPipe.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData.get(), as: UTF8.self)
        )
    }

    /// Runs and throws `Failure` unless the command exits 0; returns stdout.
    @discardableResult
    public static func check(_ arguments: [String], input: String? = nil) throws -> String {
        let result = try run(arguments, input: input)
        guard result.status == 0 else { throw Failure(command: arguments, result: result) }
        return result.stdout
    }

    /// True when `tool` is on PATH.
    public static func has(_ tool: String) -> Bool {
        (try? run(["sh", "-c", "command -v \(tool)"]).status) == 0
    }
}

private final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func set(_ value: Data) { lock.lock(); data = value; lock.unlock() }
    func get() -> Data { lock.lock(); defer { lock.unlock() }; return data }
}
