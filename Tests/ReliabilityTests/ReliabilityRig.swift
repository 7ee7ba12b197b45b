import AlarmTestSupport
import Foundation

/// One alarmd in temporary directories, playing to ALSA's null PCM (instant, no sound server),
/// with the CLI run as child processes that the tests may kill at any moment.
final class ReliabilityRig: @unchecked Sendable {
    let root: String
    private(set) var daemon: Spawned?
    let environment: [String: String]
    private(set) var starts = 0

    var stateDir: String { root + "/state" }
    var runtimeDir: String { root + "/run" }
    var fifoPath: String { runtimeDir + "/control" }
    var logPath: String { root + "/alarmd.log" }

    static var binaries: String {
        if let dir = ProcessInfo.processInfo.environment["ALARM_BIN_DIR"] { return dir }
        var url = Bundle.main.bundleURL
        if url.pathExtension == "xctest" { url.deleteLastPathComponent() }
        return url.path
    }

    init(config: String, zone: String = "UTC") throws {
        root = FileManager.default.temporaryDirectory.path + "/alarm-rel-" + UUID().uuidString
        for dir in ["state", "sounds", "out"] {
            try FileManager.default.createDirectory(atPath: root + "/" + dir, withIntermediateDirectories: true)
        }
        try config.write(toFile: root + "/alarm.conf", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: root + "/localtime", withDestinationPath: "/usr/share/zoneinfo/" + zone)
        environment = [
            "ALARM_STATE_DIR": root + "/state", "ALARM_RUNTIME_DIR": root + "/run", "ALARM_SOUNDS_DIR": root + "/sounds",
            "ALARM_DEVICE": "null", "ALARM_CONFIG": root + "/alarm.conf", "ALARM_LOCALTIME": root + "/localtime",
        ]
        FileManager.default.createFile(atPath: logPath, contents: nil)
    }

    /// Starts alarmd (its output appended to one log) and waits until it reads its FIFO.
    /// Returns the seconds it took, or nil when it did not get there within `timeout`.
    @discardableResult
    func start(timeout: Double = 15) throws -> Double? {
        let t0 = Date()
        starts += 1
        daemon = try Spawned("/bin/sh", ["-c", "exec \"$0\" >> \"$1\" 2>&1", Self.binaries + "/alarmd", logPath], environment: environment)
        let deadline = t0.addingTimeInterval(timeout)
        while Date() < deadline {
            guard let d = daemon, d.isRunning else { return nil }
            if listening { return Date().timeIntervalSince(t0) }
            usleep(5_000)
        }
        return nil
    }

    /// A reader holds the FIFO open (opening its write end without blocking succeeds).
    var listening: Bool {
        let fd = open(fifoPath, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        if fd >= 0 { close(fd) }
        return fd >= 0
    }

    var pid: pid_t? { daemon?.pid }
    var isRunning: Bool { daemon?.isRunning ?? false }

    /// kill -9, reaped.
    func crash() {
        guard let d = daemon else { return }
        d.signal(SIGKILL)
        _ = d.wait(timeout: 10)
        daemon = nil
    }

    /// SIGTERM; the exit code, or nil if it did not exit within 10 s (then it is killed).
    func stop() -> Int32? {
        guard let d = daemon else { return nil }
        d.signal(SIGTERM)
        let code = d.wait(timeout: 10)
        if code == nil { d.terminate() }
        daemon = nil
        return code
    }

    /// Starts `alarm args` without waiting; its output goes to a file in `out/`.
    func spawnCLI(_ args: [String], output: String? = nil) throws -> Spawned {
        try Spawned(Self.binaries + "/alarm", args, environment: environment, output: output ?? root + "/out/\(UUID().uuidString)")
    }

    /// Runs `alarm args` to completion: the exit code (-1 when killed after `timeout` s) and its output.
    func cliOutput(_ args: String..., timeout: Double = 20) throws -> (code: Int32, output: String) {
        let path = root + "/out/\(UUID().uuidString)"
        let p = try spawnCLI(args, output: path)
        var code = p.wait(timeout: timeout)
        if code == nil { p.terminate(); code = -1 }
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: path)
        return (code!, text)
    }

    /// Runs `alarm args` to completion (killed after `timeout` s): the exit code (-1 when killed).
    func cli(_ args: String..., timeout: Double = 20) throws -> Int32 {
        let p = try spawnCLI(args)
        if let code = p.wait(timeout: timeout) { return code }
        p.terminate()
        return -1
    }

    /// Appends a line to the log (test-side notes among the daemon's lines).
    func appendTrace(_ line: String) throws {
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        defer { try? h.close() }
        h.seekToEndOfFile()
        h.write(Data(("## " + line + "\n").utf8))
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    func status() -> [String: Any]? {
        guard let data = FileManager.default.contents(atPath: runtimeDir + "/status.json") else { return nil }
        return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }

    /// VmRSS of the daemon in KiB, from /proc.
    func residentKiB() -> Int? {
        guard let pid, let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "")
        }
        return nil
    }

    @discardableResult
    func wait(_ timeout: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    func shutdown() {
        if let d = daemon { d.terminate(grace: 2) }
        daemon = nil
        // RELIABILITY_KEEP=1 keeps the directories of a run for a post-mortem.
        if ProcessInfo.processInfo.environment["RELIABILITY_KEEP"] == "1" { print("kept \(root)") } else {
            try? FileManager.default.removeItem(atPath: root)
        }
    }

    deinit { shutdown() }
}
