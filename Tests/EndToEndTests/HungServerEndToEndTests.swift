import AlarmTestSupport
import Foundation
import Testing

/// A sound server that hangs (the PulseAudio server frozen with SIGSTOP) once wedged alarmd
/// itself: `alarm stop` waited on the player, which waited in `snd_pcm_drop`, and the pre-flight
/// probe waited in `snd_pcm_open` on the main loop. Real alarmd and alarm; `default` is a second
/// PulseAudio server, so what the ring does after the first one hangs is heard too.
@Suite("a sound server that hangs does not hold alarmd (PulseAudio, frozen)", .serialized)
struct HungServerEndToEndTests {
    @Test(
        "frozen mid-ring: the ring goes on through 'default', alarm stop answers, the pre-flight and alarm check say why; thawed: heard again"
    )
    func frozenServer() throws {
        let h = try DaemonHarness(config: "ring = 60s\npreflight = 10m\n")
        defer { h.shutdown() }
        let backup = try PulseNullSink(sinkName: "alarmbackup")
        defer { backup.shutdown() }
        let heardOnBackup = try backup.record()
        // Each device names its server, and the environment names the backup: alsa-lib's pulse
        // hook (`load_if_running`) makes `default` the environment's server whenever one runs
        // (and, that one frozen, hangs on loading the config), so the environment must not name
        // the server that will freeze, nor one this test process was pointed at by another
        // suite (the variables are inherited).
        let conf = h.root + "/asound.conf"
        try """
        pcm.primary { type pulse server "unix:\(h.pulse.socketPath)" }
        pcm.!default { type pulse server "unix:\(backup.socketPath)" }

        """.write(toFile: conf, atomically: true, encoding: .utf8)
        let elsewhere = h.root + "/no-pulse"
        try FileManager.default.createDirectory(
            atPath: elsewhere, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        h.environment["ALSA_CONFIG_PATH"] = "/usr/share/alsa/alsa.conf:" + conf
        h.environment["ALARM_DEVICE"] = "primary"
        h.environment["PULSE_SERVER"] = "unix:" + backup.socketPath
        h.environment["XDG_RUNTIME_DIR"] = elsewhere
        h.environment["HOME"] = elsewhere
        try Recording.writeSineWAV(path: h.soundsDir + "/a440.wav", frequency: 440, seconds: 1.5)
        try h.start()

        #expect(try h.cli("ring", "--sound", "a440.wav").status == 0, "\(h.log)")
        #expect(h.recorder.waitForSound(timeout: 15) != nil, "not heard on the configured device: \(h.log)")
        #expect(heardOnBackup.waitForSound(timeout: 1) == nil, "'default' plays only when 'primary' fails")

        h.pulse.freeze()
        #expect(h.wait(20) { h.log.contains("no return for 3 s (the device or its sound server hangs)") }, "\(h.log)")
        #expect(heardOnBackup.waitForSound(timeout: 15) != nil, "the ring did not go on through 'default': \(h.log)")
        #expect(h.status()?["state"] as? String == "ringing")

        // alarmd answers: stop silences the ring at once.
        let t0 = Date()
        let stop = try h.cli("stop")
        #expect(stop.status == 0, "\(stop.stderr) \(h.log)")
        #expect(Date().timeIntervalSince(t0) < 10, "alarm stop took \(Date().timeIntervalSince(t0)) s")
        #expect(h.wait(10) { h.status()?["state"] as? String == "idle" }, "\(String(describing: h.status()))")
        // The second second of recording after the stop is silent (the first may still hold
        // sound in flight). Waited for by the recording, which may lag the sink.
        let (atStop, rate) = (heardOnBackup.count, heardOnBackup.rate)
        try #require(h.wait(10) { heardOnBackup.count >= atStop + 2 * rate }, "the recording of 'default' stopped")
        #expect(
            heardOnBackup.samples[(atStop + rate)..<(atStop + 2 * rate)].allSatisfy { abs(Int($0)) < 300 },
            "silence after stop")

        // The pre-flight of the next alarm runs on alarmd's main loop: the hung device fails at
        // once there, the warning says why, and alarmd goes on answering.
        #expect(try h.cli("add", "--in", "5m", "--id", "later").status == 0)
        #expect(
            h.wait(15) { ((h.status()?["warnings"] as? [String]) ?? []).contains { $0.hasPrefix("device: ") } },
            "no device warning: \(String(describing: h.status())) \(h.log)")
        #expect(try h.cli("status").status == 0)
        // alarm check, a process of its own, gives its probe up after 3 s and names what plays.
        let check = try h.cli("check", "later", "--json")
        let report = try #require(
            try? JSONSerialization.jsonObject(with: Data(check.stdout.utf8)), "\(check.stdout) \(check.stderr)")
        #expect(checks(report)["device"]?["status"] as? String == "warning", "\(check.stdout)")
        #expect(
            (checks(report)["device"]?["message"] as? String)?.contains("'default' of the chain will be used") == true,
            "\(check.stdout)")
        #expect(check.status == 1)

        // Thawed: the call left behind returns, and the configured device is heard again.
        h.pulse.thaw()
        #expect(h.wait(20) { h.log.contains("returned at last") }, "\(h.log)")
        let mark = h.recorder.count
        #expect(try h.cli("ring", "--sound", "a440.wav").status == 0)
        #expect(h.recorder.waitForSound(from: mark, timeout: 15) != nil, "not heard after the thaw: \(h.log)")
        #expect(try h.cli("stop").status == 0)
    }
}
