import Foundation

/// Runs a program to completion for the tests that run the built binaries or other tools:
/// stdout and stderr go to files, not pipes (a chatty child can never block on a full pipe),
/// stdin is /dev/null, and a child still running at `timeout` (scaled by `Slowdown`) is terminated.
public enum ProcessRun {
    public struct Output {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// `executable args` with `environment` added to ours, less the inherited variables in `removing`.
    public static func run(
        _ executable: URL, _ args: [String], environment: [String: String] = [:], removing: [String] = [],
        timeout: TimeInterval = 60
    ) throws -> Output {
        let p = Process()
        p.executableURL = executable
        p.arguments = args
        var env = ProcessInfo.processInfo.environment.filter { !removing.contains($0.key) }
        for (k, v) in environment { env[k] = v }
        p.environment = env
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("alarm-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: tmp) }
        let outURL = tmp.appendingPathComponent("out")
        let errURL = tmp.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: outURL)
        p.standardError = try FileHandle(forWritingTo: errURL)
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try p.run()
        let deadline = Date().addingTimeInterval(Slowdown.scaled(timeout))
        while p.isRunning && Date() < deadline { usleep(10_000) }
        if p.isRunning { p.terminate() }
        p.waitUntilExit()
        return Output(
            status: p.terminationStatus, stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}
