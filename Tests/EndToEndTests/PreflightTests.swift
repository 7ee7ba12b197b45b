import AlarmTestSupport
import Foundation
import Testing

/// Issue #11: alarmd runs the checks itself shortly before each ring (status.json `warnings`,
/// `alarm status`, the journal), and when no device can play it runs `fallback_command`.
@Suite("alarmd pre-flight and fallback_command end to end (issue #11)", .serialized)
struct PreflightEndToEndTests {
    @Test(
        "a device that cannot open: pre-flight warning before the ring, alarm check exit 2, then the fallback command with ALARM_* and its exit status in history"
    )
    func deviceGone() throws {
        let h = try CheckHarness(device: "hw:99", config: "")
        defer { h.shutdown() }
        try """
        preflight = 5s
        ring = 4s
        fallback_command = env > '\(h.fallbackEnvPath)'; exit 0

        """.write(toFile: h.configPath, atomically: true, encoding: .utf8)
        try h.start()
        let added = try h.cli("add", "--in", "9s", "--id", "wake", "--label", "Good morning", "--sound", "birds.wav")
        #expect(added.status == 0, "\(added.stderr)")
        let due = Date().addingTimeInterval(9)
        // Not yet: the window opens 5 s before the ring.
        Thread.sleep(forTimeInterval: 1)
        #expect(h.warnings.isEmpty, "no pre-flight 8 s before a ring with preflight = 5s: \(h.warnings)")
        #expect(
            h.wait(8) { h.warnings.contains { $0.hasPrefix("device: ") } },
            "no device warning in status.json: \(h.status() ?? [:]) \(h.log)")
        #expect(Date() < due, "the warning came before the ring")
        let w = h.warnings
        #expect(w.contains { $0.hasPrefix("device: ") && $0.contains("hw:99") })
        #expect(w.contains { $0.hasPrefix("sound: ") && $0.contains("birds.wav") })
        #expect(!w.contains { $0.hasPrefix("clock: ") }, "the clock is reported synchronized here")
        let status = try h.cli("status")
        #expect(status.lines.contains { $0.hasPrefix("warning: device: ") }, "\(status.stdout)")
        #expect(h.log.contains("<4>pre-flight for 'wake' at "), "logged as a warning: \(h.log)")
        let check = try h.check()
        #expect(check.status == 2)
        #expect(checks(check.json)["device"]?["status"] as? String == "fail")

        // The ring: no device plays, so the fallback command runs once with the alarm's variables.
        #expect(
            h.wait(20) { FileManager.default.fileExists(atPath: h.fallbackEnvPath) },
            "fallback_command did not run: \(h.log)")
        #expect(
            h.wait(10) {
                (try? String(contentsOfFile: h.fallbackEnvPath, encoding: .utf8))?.contains("ALARM_REASON=") == true
            })
        let env = Dictionary(
            (try String(contentsOfFile: h.fallbackEnvPath, encoding: .utf8)).split(separator: "\n").compactMap {
                line -> (String, String)? in
                guard let eq = line.firstIndex(of: "=") else { return nil }
                return (String(line[..<eq]), String(line[line.index(after: eq)...]))
            }, uniquingKeysWith: { a, _ in a })
        #expect(env["ALARM_ID"] == "wake")
        #expect(env["ALARM_LABEL"] == "Good morning")
        #expect(env["ALARM_SOUND"] == "birds.wav")
        let time = try #require(env["ALARM_TIME"].flatMap(parseRFC3339), "\(env)")
        #expect(abs(time.timeIntervalSince(due)) < 1.5)
        #expect(
            env["ALARM_TIME"]?.hasSuffix("+01:00") == true || env["ALARM_TIME"]?.hasSuffix("+02:00") == true,
            "in the zone of the alarm")
        #expect(env["ALARM_REASON"]?.contains("snd_pcm_open") == true)
        #expect(env["ALARM_DEVICE"] == nil, "alarmd's own ALARM_* settings are not passed on")
        // The ring was the ring's business: the warnings are gone with it.
        #expect(h.wait(10) { h.warnings.isEmpty }, "\(h.warnings)")
        // After the ring (4 s): history has the failed ring and what the fallback did.
        #expect(h.wait(20) { h.history().contains { $0["alarm"] as? String == "wake" } }, "\(h.log)")
        let entry = try #require(h.history().first { $0["alarm"] as? String == "wake" })
        #expect(entry["outcome"] as? String == "failed")
        #expect((entry["fallback"] as? String)?.hasSuffix("exited with status 0") == true, "\(entry)")
        #expect(h.log.contains("fallback_command"), "\(h.log)")
        #expect(
            h.log.components(separatedBy: "running fallback_command").count == 2, "it ran once for the ring: \(h.log)")
    }

    @Test("a warning clears when the problem is fixed before the ring; preflight = 0 turns it off")
    func clearsAndOff() throws {
        let h = try CheckHarness(device: "null")
        defer { h.shutdown() }
        try "preflight = 30s\n".write(toFile: h.configPath, atomically: true, encoding: .utf8)
        try h.start()
        #expect(try h.cli("add", "--in", "25s", "--id", "nap", "--sound", "birds.wav").status == 0)
        #expect(h.wait(10) { h.warnings.contains { $0.hasPrefix("sound: ") } }, "\(h.status() ?? [:])")
        try Recording.writeSineWAV(path: h.soundsDir + "/birds.wav", frequency: 440, seconds: 1)
        // Re-checked every 3 s (a tenth of the lead): the warning goes.
        #expect(h.wait(10) { h.warnings.isEmpty }, "\(h.warnings)")
        #expect(h.log.contains("all checks pass now"), "\(h.log)")
        #expect(try h.cli("remove", "nap").status == 0)

        try "preflight = 0\n".write(toFile: h.configPath, atomically: true, encoding: .utf8)
        kill(try #require(h.pid), SIGHUP)
        #expect(h.wait(10) { h.log.contains("reloading the configuration") })
        #expect(try h.cli("add", "--in", "20s", "--id", "off", "--sound", "missing.wav").status == 0)
        Thread.sleep(forTimeInterval: 3)
        #expect(h.warnings.isEmpty, "preflight = 0: no checks: \(h.warnings)")
        #expect(h.status()?["warnings"] as? [String] == [], "an empty array when none")
        #expect(try h.cli("remove", "off").status == 0)
    }
}
