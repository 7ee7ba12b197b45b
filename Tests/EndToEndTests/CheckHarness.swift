import AlarmTestSupport
import Foundation

/// The built `alarm check` and `alarmd` with real alsa-lib devices and no sound card: alsa-lib's
/// `null` PCM, its `file` plugin (which shows whether a frame was written), `hw:99` (no such
/// card) and a `default` that does not open unless a test gives one.
///
/// One thing is faked, on purpose: the kernel's clock status. This machine's clock may or may
/// not be synchronized, and `alarm check` warns about an unsynchronized one; so both programs run
/// with an `LD_PRELOAD`ed `adjtimex` that reports the state `clock` names (`sync`, `unsync`),
/// built here with the toolchain's C compiler. Everything else is the system's own.
final class CheckHarness: @unchecked Sendable {
    let root: String
    private(set) var daemon: Spawned?
    var environment: [String: String]

    var stateDir: String { root + "/state" }
    var runtimeDir: String { root + "/run" }
    var soundsDir: String { root + "/sounds" }
    var configPath: String { root + "/alarm.conf" }
    var logPath: String { root + "/alarmd.log" }
    var recordedPath: String { root + "/recorded.wav" }
    var fallbackEnvPath: String { root + "/fallback.env" }

    /// `device`: the configured PCM. `workingDefault`: `default` is the file plugin (the chain's
    /// second device then opens). `config`: the config file's lines.
    init(device: String = "null", workingDefault: Bool = false, clock: String = "sync", config: String = "") throws {
        root = FileManager.default.temporaryDirectory.path + "/alarm-check-" + UUID().uuidString
        for dir in ["state", "sounds"] {
            try FileManager.default.createDirectory(atPath: root + "/" + dir, withIntermediateDirectories: true)
        }
        try config.write(toFile: root + "/alarm.conf", atomically: true, encoding: .utf8)
        var alsa = """
            pcm.rec { type file slave { pcm { type null } } file "\(root)/recorded.wav" format "wav" }
            pcm.recplug { type plug slave { pcm "rec" format S16_LE } }

            """
        alsa += workingDefault ? "pcm.!default { type plug slave { pcm \"rec\" format S16_LE } }\n" : "pcm.!default { type hw card 98 }\n"
        try alsa.write(toFile: root + "/asound.conf", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: root + "/localtime", withDestinationPath: "/usr/share/zoneinfo/Europe/Berlin")
        environment = [
            "ALARM_STATE_DIR": root + "/state", "ALARM_RUNTIME_DIR": root + "/run", "ALARM_SOUNDS_DIR": root + "/sounds",
            "ALARM_DEVICE": device, "ALARM_CONFIG": root + "/alarm.conf", "ALARM_LOCALTIME": root + "/localtime",
            "ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:" + root + "/asound.conf",
            "LD_PRELOAD": try Self.fakeClockLibrary(), "FAKE_CLOCK": clock,
            // No sound server: else a PULSE_SERVER this test process inherits from a suite run
            // alongside (an in-process sink is exported process-wide) makes alsa-lib's pulse
            // hook turn `default` into that server, and a device that should fail opens.
            "PULSE_SERVER": "unix:" + root + "/no-pulse-server", "XDG_RUNTIME_DIR": root,
        ]
    }

    /// Builds (once per test process) the preload library whose `adjtimex` reports
    /// `STA_UNSYNC` when `FAKE_CLOCK=unsync`, and a synchronized clock otherwise.
    static func fakeClockLibrary() throws -> String {
        try fakeClockOnce.get()
    }

    private static let fakeClockOnce: Result<String, Error> = Result {
        let dir = FileManager.default.temporaryDirectory.path + "/alarm-fakeclock-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let source = """
            #include <sys/timex.h>
            #include <stdlib.h>
            #include <string.h>
            int adjtimex(struct timex *t) {
                const char *s = getenv("FAKE_CLOCK");
                int unsync = s && strcmp(s, "unsync") == 0;
                memset(t, 0, sizeof *t);
                t->status = unsync ? STA_UNSYNC : STA_PLL;
                return unsync ? TIME_ERROR : TIME_OK;
            }
            """
        try source.write(toFile: dir + "/fakeclock.c", atomically: true, encoding: .utf8)
        let compilers = ["/usr/bin/cc", "/usr/bin/gcc", "/usr/bin/clang"] + (ProcessInfo.processInfo.environment["PATH"] ?? "")
            .split(separator: ":").map { $0 + "/clang" }
        guard let cc = compilers.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw PulseNullSink.Failed(description: "no C compiler (cc, gcc, clang) to build the fake adjtimex")
        }
        let r = try Binaries.runAbsolute(cc, ["-shared", "-fPIC", "-o", dir + "/fakeclock.so", dir + "/fakeclock.c"])
        guard r.status == 0 else { throw PulseNullSink.Failed(description: "\(cc) failed: \(r.stderr)") }
        // Readable by every user: a test runs `alarm check` as nobody.
        chmod(dir, 0o755)
        chmod(dir + "/fakeclock.so", 0o755)
        return dir + "/fakeclock.so"
    }

    func start() throws {
        daemon = try Spawned(Binaries.directory.path + "/alarmd", [], environment: environment, output: logPath)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let d = daemon, !d.isRunning { throw PulseNullSink.Failed(description: "alarmd exited: \(log)") }
            if FileManager.default.fileExists(atPath: runtimeDir + "/status.json"), (try? cli("status"))?.status == 0 { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw PulseNullSink.Failed(description: "alarmd did not start in 20 s: \(log)")
    }

    func cli(_ args: String...) throws -> Binaries.Result { try cli(args) }
    func cli(_ args: [String], extra: [String: String] = [:]) throws -> Binaries.Result {
        try Binaries.run("alarm", args, environment: environment.merging(extra) { $1 }, timeout: 30)
    }

    /// `alarm check --json` (with `args`) decoded, and its exit status.
    func check(_ args: String...) throws -> (status: Int32, json: Any?, result: Binaries.Result) {
        let r = try cli(["check", "--json"] + args)
        return (r.status, try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)), r)
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
    var pid: pid_t? { daemon?.pid }

    func status() -> [String: Any]? {
        guard let data = FileManager.default.contents(atPath: runtimeDir + "/status.json") else { return nil }
        return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }

    var warnings: [String] { status()?["warnings"] as? [String] ?? [] }

    func history() -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: stateDir + "/history.jsonl", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @discardableResult
    func wait(_ timeout: Double = 10, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return condition()
    }

    func shutdown() {
        if let d = daemon { d.terminate(grace: 5) }
        daemon = nil
        try? FileManager.default.removeItem(atPath: root)
    }

    deinit { shutdown() }
}

/// The checks of one `alarm check --json` object, by name.
func checks(_ json: Any?) -> [String: [String: Any]] {
    guard let o = json as? [String: Any], let list = o["checks"] as? [[String: Any]] else { return [:] }
    var out: [String: [String: Any]] = [:]
    for c in list { if let n = c["name"] as? String { out[n] = c } }
    return out
}

