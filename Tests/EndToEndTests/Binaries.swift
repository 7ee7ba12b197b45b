import AlarmTestSupport
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
        let r = try ProcessRun.run(directory.appendingPathComponent(name), args, environment: environment, timeout: timeout)
        return Result(status: r.status, stdout: r.stdout, stderr: r.stderr)
    }
}
