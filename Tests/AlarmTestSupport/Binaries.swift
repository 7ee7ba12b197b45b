import Foundation

/// Runs the built `alarm`, `alarmd`, `alarm-hooks` and `alarm-web` executables as processes: they
/// sit next to the test bundle in the build directory (the test targets depend on them, so `swift
/// test` builds them), or in `ALARM_BIN_DIR`. Also other programs by path.
public enum Binaries {
    public static var directory: URL {
        if let dir = ProcessInfo.processInfo.environment["ALARM_BIN_DIR"] { return URL(fileURLWithPath: dir) }
        var url = Bundle.main.bundleURL
        if url.pathExtension == "xctest" { url.deleteLastPathComponent() }
        return url
    }

    public static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    public struct Result {
        public var status: Int32
        public var stdout: String
        public var stderr: String
        public var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    /// Runs our `name args` to completion with `environment` added to ours, less the inherited
    /// variables in `removing`; stdin is /dev/null.
    public static func run(
        _ name: String, _ args: [String], environment: [String: String] = [:], removing: [String] = [],
        timeout: TimeInterval = 60
    ) throws -> Result {
        try runAbsolute(path(name), args, environment: environment, removing: removing, timeout: timeout)
    }

    /// Runs a program by its path (not one of ours), the same way.
    public static func runAbsolute(
        _ path: String, _ args: [String], environment: [String: String] = [:], removing: [String] = [],
        timeout: TimeInterval = 600
    ) throws -> Result {
        let r = try ProcessRun.run(
            URL(fileURLWithPath: path), args, environment: environment, removing: removing, timeout: timeout)
        return Result(status: r.status, stdout: r.stdout, stderr: r.stderr)
    }
}
