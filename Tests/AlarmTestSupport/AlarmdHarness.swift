import Foundation

/// One alarmd under test and the `alarm` CLI pointed at it, both the built binaries: a temporary
/// root with its own state, runtime and sound directories, a config file, a zone file the test
/// can swap, and a log alarmd appends to across restarts. With `.pulseSink` it plays to a
/// private PulseAudio null sink, recorded in real time; with `.device` to an ALSA device.
///
/// Every test that runs alarmd starts it here; the targets' own harnesses (the web server, the
/// crash rig, `alarm check`'s fake clock) are small extensions on top. Processes are stopped and
/// the root removed in `shutdown()` / `deinit`.
open class AlarmdHarness: @unchecked Sendable {
    /// Where alarmd plays.
    public enum Audio {
        /// ALSA's `pulse` PCM on a private null sink named so (`pulse`, `recorder`).
        case pulseSink(String)
        /// An ALSA device by name (`null`: instant and silent), no sound server of our own.
        case device(String)
    }

    public let root: String
    /// The sink and its recording with `.pulseSink`; nil with `.device`.
    public let pulse: PulseNullSink!
    public let recorder: PulseRecorder!
    public private(set) var daemon: Spawned?
    /// What alarmd and the CLI run with (added to this process's environment).
    public var environment: [String: String]
    /// How long `shutdown()` gives alarmd to leave on SIGTERM before SIGKILL.
    public var shutdownGrace = 0.3
    /// Leaves the root in place at `shutdown()`, for a post-mortem.
    public var keepRoot = false
    /// Variables of this process's environment that alarmd and the CLI must not inherit (a
    /// `NOTIFY_SOCKET` of the test runner's own, say).
    public var removedEnvironment: [String] = []
    /// What alarmd is started through: a command and its options, ending in `--` where it takes
    /// one (`setpriv --reuid=… --`). Its output still goes to `logPath`, opened before it runs.
    public var launcher: [String] = []
    /// The alarmd started: the built one, or a copy (one that other users may run).
    public var alarmdPath = Binaries.path("alarmd")

    public var stateDir: String { root + "/state" }
    public var runtimeDir: String { root + "/run" }
    public var soundsDir: String { root + "/sounds" }
    public var configPath: String { root + "/alarm.conf" }
    public var localtime: String { root + "/localtime" }
    public var logPath: String { root + "/alarmd.log" }
    public var fifoPath: String { runtimeDir + "/control" }
    public var statusPath: String { runtimeDir + "/status.json" }
    public var eventsPath: String { runtimeDir + "/events.jsonl" }
    public var historyPath: String { stateDir + "/history.jsonl" }
    public var rate: Int { pulse.rate }

    /// `name` prefixes the root's name (for a look in /tmp); `root` is the root's whole path instead
    /// (a short one, for a socket in it); `config` is the config file's text (`key = value` lines);
    /// `directories` are made below the root besides state and sounds.
    public init(
        name: String = "alarm-test", root: String? = nil, zone: String = "Europe/Berlin",
        config: String = "ring = 30s\n", audio: Audio = .pulseSink("alarmtest"), directories: [String] = []
    ) throws {
        self.root = root ?? FileManager.default.temporaryDirectory.path + "/\(name)-" + UUID().uuidString
        for dir in ["state", "sounds"] + directories {
            try FileManager.default.createDirectory(atPath: self.root + "/" + dir, withIntermediateDirectories: true)
        }
        environment = [
            "ALARM_STATE_DIR": self.root + "/state", "ALARM_RUNTIME_DIR": self.root + "/run",
            "ALARM_SOUNDS_DIR": self.root + "/sounds",
            "ALARM_CONFIG": self.root + "/alarm.conf", "ALARM_LOCALTIME": self.root + "/localtime",
        ]
        switch audio {
        case .pulseSink(let name):
            let sink = try PulseNullSink(sinkName: name)
            pulse = sink
            recorder = try sink.record()
            environment.merge(sink.environment) { $1 }
            environment["ALARM_DEVICE"] = "pulse"
        case .device(let device):
            pulse = nil
            recorder = nil
            environment["ALARM_DEVICE"] = device
        }
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        try setConfig(config)
        try setZone(zone)
    }

    /// Writes the config file (alarmd reads it at start and on reload).
    public func setConfig(_ text: String) throws {
        try text.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// Replaces the zone file the way `timedatectl set-timezone` does: a new symlink renamed over it.
    public func setZone(_ zone: String) throws {
        let fresh = root + "/localtime.new"
        try? FileManager.default.removeItem(atPath: fresh)
        try FileManager.default.createSymbolicLink(atPath: fresh, withDestinationPath: "/usr/share/zoneinfo/" + zone)
        guard rename(fresh, localtime) == 0 else { throw PulseNullSink.Failed(description: "rename: \(errno)") }
    }

    /// Starts alarmd (through `launcher`) with the harness's environment (plus `extra`), its output
    /// appended to `logPath`, without waiting for it.
    public func launch(environment extra: [String: String] = [:]) throws {
        daemon = try Spawned(
            "/bin/sh", ["-c", "exec \"$@\" >> \"$0\" 2>&1", logPath] + launcher + [alarmdPath],
            environment: environment.merging(extra) { $1 }, removing: removedEnvironment)
    }

    /// Starts alarmd and waits until it is up: status.json written by this alarmd and `alarm
    /// status` answered. status.json outlives an alarmd (a crash, a stop), and alarmd opens its
    /// FIFO before it loads its alarms and state: the file of an earlier run is not a sign of this
    /// one being up.
    public func start(timeout: Double = 20) throws {
        let stale = statusStamp()
        try launch()
        let up = try waitUntil(timeout: timeout, poll: 0.05) {
            if let d = daemon, !d.isRunning { throw PulseNullSink.Failed(description: "alarmd exited: \(log)") }
            guard let stamp = statusStamp(), stamp != stale else { return false }
            return (try? cli("status"))?.status == 0
        }
        guard up else {
            throw PulseNullSink.Failed(description: "alarmd did not start in \(Slowdown.scaled(timeout)) s: \(log)")
        }
    }

    /// Whether a reader holds the FIFO open (opening its write end without blocking succeeds).
    public var listening: Bool {
        let fd = open(fifoPath, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        if fd >= 0 { close(fd) }
        return fd >= 0
    }

    /// SIGTERM, as systemd stops it: the exit code, or nil when it did not leave in 10 s (it is
    /// then killed).
    @discardableResult
    public func stop() -> Int32? {
        guard let d = daemon else { return nil }
        d.signal(SIGTERM)
        let code = d.wait(timeout: Slowdown.scaled(10))
        if code == nil { d.terminate() }
        daemon = nil
        return code
    }

    /// kill -9, reaped: a crash, no chance to save anything.
    public func crash() {
        guard let d = daemon else { return }
        d.signal(SIGKILL)
        _ = d.wait(timeout: Slowdown.scaled(10))
        daemon = nil
    }

    public var isRunning: Bool { daemon?.isRunning ?? false }
    public var pid: pid_t? { daemon?.pid }

    /// Runs `alarm args` to completion with the harness's environment (plus `extra`).
    public func cli(_ args: String...) throws -> Binaries.Result { try cli(args) }
    public func cli(_ args: [String], environment extra: [String: String] = [:]) throws -> Binaries.Result {
        try Binaries.run(
            "alarm", args, environment: environment.merging(extra) { $1 }, removing: removedEnvironment, timeout: 30)
    }

    /// Runs another program by its path (`setpriv`, say) to completion with the harness's environment.
    public func run(_ path: String, _ args: [String]) throws -> Binaries.Result {
        try Binaries.runAbsolute(path, args, environment: environment, removing: removedEnvironment, timeout: 30)
    }

    /// Starts one of our programs (`alarm watch`, `alarm-hooks`, …) with the harness's
    /// environment (plus `extra`) and leaves it running; output as `Spawned` takes it.
    public func spawn(
        _ program: String, _ args: [String], environment extra: [String: String] = [:],
        output: String? = nil, stdoutFD: Int32? = nil
    ) throws -> Spawned {
        try Spawned(
            Binaries.path(program), args, environment: environment.merging(extra) { $1 },
            removing: removedEnvironment, output: output, stdoutFD: stdoutFD)
    }

    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// status.json, or nil while there is none (or it does not parse).
    public func status() -> [String: Any]? {
        guard let data = FileManager.default.contents(atPath: statusPath) else { return nil }
        return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }

    /// Identifies one write of status.json (alarmd renames a new file into place: a new inode),
    /// or nil while there is none.
    private func statusStamp() -> [Int]? {
        var st = stat()
        guard stat(statusPath, &st) == 0 else { return nil }
        return [Int(st.st_ino), st.st_mtim.tv_sec, st.st_mtim.tv_nsec]
    }

    /// The rings alarmd recorded, oldest first.
    public func history() -> [[String: Any]] { Self.jsonLines(historyPath) }

    /// The event log's lines as JSON objects, as alarmd wrote them.
    public func events() -> [[String: Any]] { Self.jsonLines(eventsPath) }

    /// The lines of `path` that are JSON objects.
    public static func jsonLines(_ path: String) -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// `waitUntil(timeout:_:)`: polls `condition` for up to `timeout` s, scaled by `Slowdown`.
    @discardableResult
    public func wait(_ timeout: Double = 10, _ condition: () -> Bool) -> Bool {
        waitUntil(timeout: timeout, condition)
    }

    /// For a wait on the recording that timed out: whether parec and pulseaudio still run, how
    /// much was recorded, and the end of the server's log.
    public var recordingDiagnosis: String {
        guard let recorder, let pulse else { return "no recording" }
        return
            "parec \(recorder.isRunning ? "running" : "not running"), \(recorder.count) samples recorded; \(pulse.diagnosis)"
    }

    /// The wall-clock time `seconds` from now in `zone`, as an expression's time `HH:MM:SS`, and
    /// the instant it stands for (whole seconds).
    public func wallTime(in zone: String, secondsFromNow seconds: Double) -> (text: String, instant: Date) {
        let instant = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + seconds).rounded(.up))
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: zone)
        f.dateFormat = "HH:mm:ss"
        return (f.string(from: instant), instant)
    }

    /// Stops alarmd (and the sink), removes the root; more calls do nothing more.
    open func shutdown() {
        daemon?.terminate(grace: shutdownGrace)
        daemon = nil
        _ = recorder?.stop()
        pulse?.shutdown()
        if keepRoot { print("kept \(root)") } else { try? FileManager.default.removeItem(atPath: root) }
    }

    deinit { shutdown() }
}

extension Dictionary where Key == String, Value == Any {
    /// The string at `key`, for reading status and history entries.
    public func string(_ key: String) -> String? { self[key] as? String }
}
