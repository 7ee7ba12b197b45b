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

    /// A copy of our executable `name` that every user may run, for tests that run it as another
    /// user (setpriv, runuser): the build directory sits in the checkout, whose parents may be
    /// closed to others (Debian's home directories are 0700, and so is what `mktemp -d` makes).
    public static func reachablePath(_ name: String) throws -> String {
        try reachableCopy(of: path(name), as: name)
    }

    /// A copy of the file at `path` (say this test bundle, `/proc/self/exe`) as `name` in a
    /// directory of this process that every user may enter, made once per name and process.
    public static func reachableCopy(of path: String, as name: String) throws -> String {
        try ReachableCopies.shared.copy(of: path, as: name)
    }

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

/// The directory of `Binaries.reachableCopy`: `/tmp/alarm-test-bin-PID` (0755), copies 0755. Left
/// behind by a process that ends; the next one removes those whose process is gone.
private final class ReachableCopies: @unchecked Sendable {
    static let shared = ReachableCopies()
    private let lock = NSLock()
    private var made: [String: String] = [:]
    private let directory = "/tmp/alarm-test-bin-\(getpid())"

    func copy(of path: String, as name: String) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if let done = made[name] { return done }
        let fm = FileManager.default
        if made.isEmpty {
            removeStale()
            try fm.createDirectory(atPath: directory, withIntermediateDirectories: true)
            guard chmod(directory, 0o755) == 0 else { throw CocoaError(.fileWriteNoPermission) }
        }
        let target = directory + "/" + name
        try? fm.removeItem(atPath: target)
        try Self.copyClosingOnExec(URL(fileURLWithPath: path).resolvingSymlinksInPath().path, to: target)
        made[name] = target
        return target
    }

    /// Copies `source` to a new 0755 `target` through descriptors opened `O_CLOEXEC`. A child
    /// another test starts meanwhile (alarmd, a hook) inherits every descriptor without it until
    /// its exec, and for its whole life when it runs on without exec: while any process holds the
    /// copy open for writing, executing it fails with ETXTBSY ("setpriv: failed to execute
    /// ...xctest: Text file busy", seen once in a helper's run of AlarmSystemTests beside tests
    /// that start processes, issue #40). FileManager.copyItem's descriptors are not `O_CLOEXEC`.
    private static func copyClosingOnExec(_ source: String, to target: String) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(input) }
        let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        guard output >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var failure: Int32 = 0
        while failure == 0 {
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n == 0 { break }
            if n < 0 {
                if errno != EINTR { failure = errno }
                continue
            }
            var done = 0
            while done < n && failure == 0 {
                let w = buffer.withUnsafeBytes { write(output, $0.baseAddress! + done, n - done) }
                if w < 0 {
                    if errno != EINTR { failure = errno }
                } else {
                    done += w
                }
            }
        }
        if fchmod(output, 0o755) != 0 && failure == 0 { failure = errno }
        if close(output) != 0 && failure == 0 { failure = errno }
        if failure != 0 { throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .EIO) }
    }

    /// The directories of earlier test processes that are gone.
    private func removeStale() {
        let fm = FileManager.default
        for entry in (try? fm.contentsOfDirectory(atPath: "/tmp")) ?? [] where entry.hasPrefix("alarm-test-bin-") {
            guard let pid = Int32(entry.dropFirst("alarm-test-bin-".count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { try? fm.removeItem(atPath: "/tmp/" + entry) }
        }
    }
}
