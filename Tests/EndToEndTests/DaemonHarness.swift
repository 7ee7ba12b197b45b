import AlarmTestSupport
import Foundation

/// One alarmd under test: its own temporary state, runtime and sound directories, a zone file
/// the test can swap, and a PulseAudio null sink it plays to, recorded in real time.
final class DaemonHarness: @unchecked Sendable {
    let root: String
    let pulse: PulseNullSink
    let recorder: PulseRecorder
    private(set) var daemon: Spawned?
    var environment: [String: String]

    var stateDir: String { root + "/state" }
    var runtimeDir: String { root + "/run" }
    var soundsDir: String { root + "/sounds" }
    var localtime: String { root + "/localtime" }
    var logPath: String { root + "/alarmd.log" }
    var fifoPath: String { runtimeDir + "/control" }
    var rate: Int { pulse.rate }

    /// `config` is the text of the config file (`key = value` lines).
    init(zone: String = "Europe/Berlin", config: String = "ring = 30s\n") throws {
        root = FileManager.default.temporaryDirectory.path + "/alarm-e2e-" + UUID().uuidString
        for dir in ["state", "sounds", "zoneinfo"] {
            try FileManager.default.createDirectory(atPath: root + "/" + dir, withIntermediateDirectories: true)
        }
        try config.write(toFile: root + "/alarm.conf", atomically: true, encoding: .utf8)
        pulse = try PulseNullSink(sinkName: "alarme2e")
        recorder = try pulse.record()
        environment = pulse.environment.merging([
            "ALARM_STATE_DIR": root + "/state", "ALARM_RUNTIME_DIR": root + "/run", "ALARM_SOUNDS_DIR": root + "/sounds",
            "ALARM_DEVICE": "pulse", "ALARM_CONFIG": root + "/alarm.conf", "ALARM_LOCALTIME": root + "/localtime",
        ]) { $1 }
        try setZone(zone)
    }

    /// Replaces the zone file the way `timedatectl set-timezone` does: a new symlink renamed over it.
    func setZone(_ zone: String) throws {
        let fresh = root + "/localtime.new"
        try? FileManager.default.removeItem(atPath: fresh)
        try FileManager.default.createSymbolicLink(atPath: fresh, withDestinationPath: "/usr/share/zoneinfo/" + zone)
        guard rename(fresh, localtime) == 0 else { throw PulseNullSink.Failed(description: "rename: \(errno)") }
    }

    /// Starts alarmd and waits until it listens on its FIFO.
    func start() throws {
        let log = FileHandle(forWritingAtPath: logPath) ?? {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
            return FileHandle(forWritingAtPath: logPath)!
        }()
        log.seekToEndOfFile()
        try log.close()
        // Append to one log across restarts.
        daemon = try Spawned("/bin/sh", ["-c", "exec \"$0\" >> \"$1\" 2>&1", Binaries.directory.path + "/alarmd", logPath], environment: environment)
        let deadline = Date().addingTimeInterval(Slowdown.scaled(20))
        while Date() < deadline {
            if let d = daemon, !d.isRunning { throw PulseNullSink.Failed(description: "alarmd exited: \(self.log)") }
            if (try? cli("status")).map({ $0.status == 0 }) == true { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw PulseNullSink.Failed(description: "alarmd did not start listening in \(Slowdown.scaled(20)) s: \(self.log)")
    }

    /// SIGTERM, as systemd stops it; waits for a clean exit.
    func stop() -> Int32? {
        guard let d = daemon else { return nil }
        d.signal(SIGTERM)
        let code = d.wait(timeout: Slowdown.scaled(10))
        daemon = nil
        return code
    }

    /// kill -9: a crash, no chance to save anything.
    func crash() {
        guard let d = daemon else { return }
        d.signal(SIGKILL)
        _ = d.wait(timeout: Slowdown.scaled(5))
        daemon = nil
    }

    var isRunning: Bool { daemon?.isRunning ?? false }
    var pid: pid_t? { daemon?.pid }

    func cli(_ args: String...) throws -> Binaries.Result { try cli(args) }
    func cli(_ args: [String]) throws -> Binaries.Result {
        try Binaries.run("alarm", args, environment: environment, timeout: 20)
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// For a wait on the recording that timed out: whether parec and pulseaudio still run, how
    /// much was recorded, and the end of the server's log.
    var recordingDiagnosis: String {
        "parec \(recorder.isRunning ? "running" : "not running"), \(recorder.count) samples recorded; \(pulse.diagnosis)"
    }

    func status() -> [String: Any]? {
        guard let data = FileManager.default.contents(atPath: runtimeDir + "/status.json") else { return nil }
        return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }

    func history() -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: stateDir + "/history.jsonl", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Polls `condition` every 20 ms for up to `timeout` s (scaled by `Slowdown`).
    @discardableResult
    func wait(_ timeout: Double = 10, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(Slowdown.scaled(timeout))
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return condition()
    }

    /// The wall-clock time `seconds` from now in `zone`, as an expression's time `HH:MM:SS`, and
    /// the instant it stands for (whole seconds).
    func wallTime(in zone: String, secondsFromNow seconds: Double) -> (text: String, instant: Date) {
        let instant = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + seconds).rounded(.up))
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: zone)
        f.dateFormat = "HH:mm:ss"
        return (f.string(from: instant), instant)
    }

    func shutdown() {
        if let d = daemon { d.terminate() }
        daemon = nil
        _ = recorder.stop()
        pulse.shutdown()
        try? FileManager.default.removeItem(atPath: root)
    }

    deinit { shutdown() }
}

extension Dictionary where Key == String, Value == Any {
    func string(_ key: String) -> String? { self[key] as? String }
}
