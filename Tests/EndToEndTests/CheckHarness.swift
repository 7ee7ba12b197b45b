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
final class CheckHarness: AlarmdHarness, @unchecked Sendable {
    var recordedPath: String { root + "/recorded.wav" }
    var fallbackEnvPath: String { root + "/fallback.env" }

    /// `device`: the configured PCM. `workingDefault`: `default` is the file plugin (the chain's
    /// second device then opens). `config`: the config file's lines.
    init(device: String = "null", workingDefault: Bool = false, clock: String = "sync", config: String = "") throws {
        try super.init(name: "alarm-check", config: config, audio: .device(device))
        shutdownGrace = 5
        var alsa = """
            pcm.rec { type file slave { pcm { type null } } file "\(root)/recorded.wav" format "wav" }
            pcm.recplug { type plug slave { pcm "rec" format S16_LE } }

            """
        alsa +=
            workingDefault
            ? "pcm.!default { type plug slave { pcm \"rec\" format S16_LE } }\n" : "pcm.!default { type hw card 98 }\n"
        try alsa.write(toFile: root + "/asound.conf", atomically: true, encoding: .utf8)
        environment.merge([
            "ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:" + root + "/asound.conf",
            "LD_PRELOAD": try Self.fakeClockLibrary(), "FAKE_CLOCK": clock,
            // No sound server: else a PULSE_SERVER this test process inherits from a suite run
            // alongside (an in-process sink is exported process-wide) makes alsa-lib's pulse
            // hook turn `default` into that server, and a device that should fail opens.
            "PULSE_SERVER": "unix:" + root + "/no-pulse-server", "XDG_RUNTIME_DIR": root,
        ]) { $1 }
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
        let compilers =
            ["/usr/bin/cc", "/usr/bin/gcc", "/usr/bin/clang"]
            + (ProcessInfo.processInfo.environment["PATH"] ?? "")
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

    /// Whether the fake `adjtimex` was in force in the run that gave `result`: not where the
    /// loader said it could not preload it (an emulated program: the arm64 suite under qemu-user,
    /// the library built by the host's C compiler for the host).
    static func clockFaked(_ result: Binaries.Result) -> Bool {
        !result.stderr.contains("fakeclock.so' from LD_PRELOAD cannot be preloaded")
    }

    /// `alarm check --json` (with `args`) decoded, and its exit status.
    func check(_ args: String...) throws -> (status: Int32, json: Any?, result: Binaries.Result) {
        let r = try cli(["check", "--json"] + args)
        return (r.status, try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)), r)
    }

    var warnings: [String] { status()?["warnings"] as? [String] ?? [] }

}

/// The checks of one `alarm check --json` object, by name.
func checks(_ json: Any?) -> [String: [String: Any]] {
    guard let o = json as? [String: Any], let list = o["checks"] as? [[String: Any]] else { return [:] }
    var out: [String: [String: Any]] = [:]
    for c in list { if let n = c["name"] as? String { out[n] = c } }
    return out
}
