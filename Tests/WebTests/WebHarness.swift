import AlarmTestSupport
import Foundation

/// alarm-web under test, with (when asked) a real alarmd playing into a PulseAudio null sink:
/// an `AlarmdHarness` whose config file has `web_listen` on a free port of 127.0.0.1 and
/// `web_token_file`, and a token made by `alarm web-token --rotate`.
final class WebHarness: AlarmdHarness, @unchecked Sendable {
    private(set) var web: Spawned?
    private(set) var port = 0
    private(set) var token = ""

    var tokenPath: String { root + "/web-token" }
    var webLogPath: String { root + "/alarm-web.log" }
    var webLog: String { (try? String(contentsOfFile: webLogPath, encoding: .utf8)) ?? "" }
    var daemonLog: String { log }
    var http: RawHTTP { RawHTTP(port: port, token: token) }

    /// `activated`: alarm-web is started as systemd starts it from `alarm-web.socket`, by
    /// `SocketActivator` (which holds one [::] socket for both families and starts alarm-web
    /// again whenever it exits).
    let activated: Bool

    init(withDaemon: Bool, config extra: String = "", listen: String = "127.0.0.1:0", activated: Bool = false) throws {
        self.activated = activated
        try super.init(name: "alarm-web", audio: withDaemon ? .pulseSink("alarmweb") : .device("pulse"))
        try setConfig("ring = 30s\nweb_listen = \(listen)\nweb_token_file = \(root)/web-token\n\(extra)")
        let made = try cli("web-token", "--rotate")
        guard made.status == 0 else { throw RawHTTP.Failed(description: "alarm web-token --rotate: \(made.stderr)") }
        token = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        if withDaemon { try start() }
        try startWeb()
    }

    /// Starts alarm-web and reads the port it bound from its log.
    func startWeb() throws {
        web = try Spawned(
            "/bin/sh",
            activated
                ? [
                    "-c", "exec /usr/bin/perl -e \"$2\" \"$0\" >> \"$1\" 2>&1", Self.webBinary, webLogPath,
                    SocketActivator.script,
                ]
                : ["-c", "exec \"$0\" >> \"$1\" 2>&1", Self.webBinary, webLogPath],
            environment: environment)
        let found = try waitUntil(timeout: 30, poll: 0.05) {
            if let w = web, !w.isRunning { throw RawHTTP.Failed(description: "alarm-web exited: \(webLog)") }
            guard
                let range = webLog.range(
                    of: #"listening on http://(127\.0\.0\.1|0\.0\.0\.0|\[[0-9a-f:]*\]):(\d+)/"#,
                    options: .regularExpression)
            else { return false }
            port = Int(webLog[range].split(separator: ":").last!.dropLast()) ?? 0
            return true
        }
        guard found else {
            throw RawHTTP.Failed(
                description: "alarm-web did not start listening in \(Slowdown.scaled(30)) s: \(webLog)")
        }
    }

    /// The alarm-web to run: `ALARM_WEB_BIN` (CI points it at the release build for the attack
    /// suite, as issue #31 asks), else the one beside the tests.
    static var webBinary: String {
        ProcessInfo.processInfo.environment["ALARM_WEB_BIN"] ?? Binaries.path("alarm-web")
    }

    /// alarm-web's process id (the shell execs it).
    var webPID: pid_t? { web?.pid }

    func stopWeb() -> Int32? {
        guard let w = web else { return nil }
        w.signal(SIGTERM)
        let code = w.wait(timeout: Slowdown.scaled(10))
        web = nil
        return code
    }

    override func shutdown() {
        web?.terminate()
        web = nil
        // Under the activator, an alarm-web it started again may outlive it (the activator killed
        // before it reaped its child: one was seen still running after a passing run, holding
        // its socket). Each it started that still runs with this harness's directories is ended.
        if activated {
            for pid in SocketActivator.children(webLog) where Self.runs(pid, under: root) { kill(pid, SIGKILL) }
        }
        super.shutdown()
    }

    /// True when process `pid` runs with `root` in its environment (this harness's own, not
    /// another process that got the number since).
    static func runs(_ pid: pid_t, under root: String) -> Bool {
        guard let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
        return environ.split(separator: 0).contains { String(decoding: $0, as: UTF8.self).contains(root) }
    }
}
