import AlarmTestSupport
import Foundation

/// alarm-web under test, with (when asked) a real alarmd playing into a PulseAudio null sink:
/// its own state, runtime and sound directories, a config file with `web_listen` on a free
/// port of 127.0.0.1 and `web_token_file`, and a token made by `alarm web-token --rotate`.
final class WebHarness: @unchecked Sendable {
    let root: String
    let pulse: PulseNullSink?
    let recorder: PulseRecorder?
    private(set) var daemon: Spawned?
    private(set) var web: Spawned?
    private(set) var port = 0
    let environment: [String: String]
    private(set) var token = ""

    var stateDir: String { root + "/state" }
    var runtimeDir: String { root + "/run" }
    var tokenPath: String { root + "/web-token" }
    var webLogPath: String { root + "/alarm-web.log" }
    var daemonLogPath: String { root + "/alarmd.log" }
    var webLog: String { (try? String(contentsOfFile: webLogPath, encoding: .utf8)) ?? "" }
    var daemonLog: String { (try? String(contentsOfFile: daemonLogPath, encoding: .utf8)) ?? "" }
    var http: RawHTTP { RawHTTP(port: port, token: token) }

    init(withDaemon: Bool, config extra: String = "") throws {
        root = FileManager.default.temporaryDirectory.path + "/alarm-web-" + UUID().uuidString
        for dir in ["state", "sounds"] {
            try FileManager.default.createDirectory(atPath: root + "/" + dir, withIntermediateDirectories: true)
        }
        try FileManager.default.createSymbolicLink(atPath: root + "/localtime", withDestinationPath: "/usr/share/zoneinfo/Europe/Berlin")
        try "ring = 30s\nweb_listen = 127.0.0.1:0\nweb_token_file = \(root)/web-token\n\(extra)".write(toFile: root + "/alarm.conf", atomically: true, encoding: .utf8)
        var env = [
            "ALARM_STATE_DIR": root + "/state", "ALARM_RUNTIME_DIR": root + "/run", "ALARM_SOUNDS_DIR": root + "/sounds",
            "ALARM_DEVICE": "pulse", "ALARM_CONFIG": root + "/alarm.conf", "ALARM_LOCALTIME": root + "/localtime",
        ]
        if withDaemon {
            let sink = try PulseNullSink(sinkName: "alarmweb")
            pulse = sink
            recorder = try sink.record()
            env.merge(sink.environment) { $1 }
        } else {
            pulse = nil
            recorder = nil
        }
        environment = env
        let made = try cli("web-token", "--rotate")
        guard made.status == 0 else { throw RawHTTP.Failed(description: "alarm web-token --rotate: \(made.stderr)") }
        token = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        if withDaemon { try startDaemon() }
        try startWeb()
    }

    func startDaemon() throws {
        daemon = try Spawned("/bin/sh", ["-c", "exec \"$0\" >> \"$1\" 2>&1", Binaries.path("alarmd"), daemonLogPath], environment: environment)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let d = daemon, !d.isRunning { throw RawHTTP.Failed(description: "alarmd exited: \(daemonLog)") }
            if (try? cli("status"))?.status == 0 { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw RawHTTP.Failed(description: "alarmd did not start in 20 s: \(daemonLog)")
    }

    /// Starts alarm-web and reads the port it bound from its log.
    func startWeb() throws {
        web = try Spawned("/bin/sh", ["-c", "exec \"$0\" >> \"$1\" 2>&1", Binaries.path("alarm-web"), webLogPath], environment: environment)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let w = web, !w.isRunning { throw RawHTTP.Failed(description: "alarm-web exited: \(webLog)") }
            if let range = webLog.range(of: #"listening on http://127\.0\.0\.1:(\d+)/"#, options: .regularExpression) {
                let text = webLog[range]
                port = Int(text.split(separator: ":").last!.dropLast()) ?? 0
                return
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw RawHTTP.Failed(description: "alarm-web did not start listening in 30 s: \(webLog)")
    }

    func stopWeb() -> Int32? {
        guard let w = web else { return nil }
        w.signal(SIGTERM)
        let code = w.wait(timeout: 10)
        web = nil
        return code
    }

    func cli(_ args: String...) throws -> Binaries.Result { try cli(args) }
    func cli(_ args: [String]) throws -> Binaries.Result { try Binaries.run("alarm", args, environment: environment, timeout: 20) }

    func status() -> [String: Any] {
        guard let data = FileManager.default.contents(atPath: runtimeDir + "/status.json") else { return [:] }
        return (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    @discardableResult
    func wait(_ timeout: Double = 10, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return condition()
    }

    func shutdown() {
        web?.terminate()
        web = nil
        daemon?.terminate()
        daemon = nil
        _ = recorder?.stop()
        pulse?.shutdown()
        try? FileManager.default.removeItem(atPath: root)
    }

    deinit { shutdown() }
}

