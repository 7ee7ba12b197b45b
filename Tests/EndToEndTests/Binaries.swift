import Foundation

/// Runs the built `alarm` / `alarmd` executables as processes: they sit next to the test bundle
/// in the build directory (the test target depends on both, so `swift test` builds them).
enum Binaries {
    static var directory: URL {
        if let dir = ProcessInfo.processInfo.environment["ALARM_BIN_DIR"] { return URL(fileURLWithPath: dir) }
        var url = Bundle.main.bundleURL
        if url.pathExtension == "xctest" { url.deleteLastPathComponent() }
        return url
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    /// Runs `name args` to completion with `environment` added to ours; stdin is /dev/null.
    static func run(_ name: String, _ args: [String], environment: [String: String] = [:], timeout: TimeInterval = 60) throws -> Result {
        let p = Process()
        p.executableURL = directory.appendingPathComponent(name)
        p.arguments = args
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        p.environment = env
        // Files, not pipes: a chatty child can never block on a full pipe.
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("alarm-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: tmp) }
        let outURL = tmp.appendingPathComponent("out"), errURL = tmp.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: outURL)
        p.standardError = try FileHandle(forWritingTo: errURL)
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try p.run()
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        if p.isRunning { p.terminate() }
        p.waitUntilExit()
        let outData = try Data(contentsOf: outURL), errData = try Data(contentsOf: errURL)
        return Result(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
    }
}
