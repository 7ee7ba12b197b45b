import AlarmTestSupport
import Foundation
import Glibc
import Testing

/// Issue #11: `alarm check` as a user runs it, against a real alarmd and real alsa-lib devices:
/// exit 0 / 1 / 2, the human lines, the JSON.
@Suite("alarm check end to end (issue #11)", .serialized)
struct CheckTests {
    /// A daily time three hours ahead on the harness's wall clock (Europe/Berlin): whenever the
    /// suite runs, the alarm is neither about to ring nor in its pre-flight window during a test.
    let later: String = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        let c = calendar.dateComponents([.hour, .minute], from: Date().addingTimeInterval(3 * 3600))
        return String(format: "%02d:%02d", c.hour!, c.minute!)
    }()

    func statuses(_ json: Any?) -> [String: String] {
        checks(json).compactMapValues { $0["status"] as? String }
    }

    @Test("all ok: alarmd runs and will ring it, the default tone, a device that opens, exit 0")
    func allOK() throws {
        let h = try CheckHarness(device: "null")
        defer { h.shutdown() }
        try h.start()
        #expect(try h.cli("add", later, "--id", "work").status == 0)
        let (status, json, r) = try h.check()
        #expect(status == 0, "\(r.stdout) \(r.stderr)")
        let o = try #require(json as? [String: Any])
        #expect(Set(o.keys) == ["alarm", "at", "verdict", "checks"])
        #expect(o["alarm"] as? String == "work")
        #expect(o["verdict"] as? String == "ok")
        let next = try h.cli("next", "--json").stdout
        #expect(next.contains("\"at\":\"\(o["at"] as? String ?? "?")\""), "at matches alarm next: \(next)")
        #expect(
            statuses(json) == [
                "daemon": "ok", "sound": "ok", "device": "ok", "mixer": "ok", "clock": "ok", "zone": "ok",
                "storage": "ok",
            ])
        for c in (o["checks"] as? [[String: Any]]) ?? [] { #expect(Set(c.keys) == ["name", "status", "message"]) }
        #expect(
            (checks(json)["daemon"]?["message"] as? String)?.hasPrefix("alarmd runs and will ring 'work' at ") == true)
        #expect((checks(json)["zone"]?["message"] as? String)?.contains("Europe/Berlin") == true)
        // The human form: a heading, one line per check, the verdict.
        let human = try h.cli("check")
        #expect(human.status == 0)
        #expect(human.stdout.hasPrefix("alarm 'work' at "))
        // "(in 7 h 12 min)", "(in 23 h)", "(in 45 min)": how long until the ring, spoken.
        let spoken = try Regex(#"\(in \d+ (d|h|min)( \d+ (h|min))*\)"#)
        #expect(human.stdout.contains(spoken), "\(human.stdout)")
        #expect(human.lines.filter { $0.hasPrefix("  ok ") }.count == 7, "\(human.stdout)")
        #expect(human.lines.last == "verdict: ok: it will ring as set")
    }

    @Test("alarmd not running: fail, exit 2")
    func daemonDown() throws {
        let h = try CheckHarness(device: "null")
        defer { h.shutdown() }
        #expect(try h.cli("add", later, "--id", "work").status == 0)
        let (status, json, _) = try h.check()
        #expect(status == 2)
        #expect(statuses(json)["daemon"] == "fail")
        #expect((json as? [String: Any])?["verdict"] as? String == "fail")
        #expect((checks(json)["daemon"]?["message"] as? String)?.contains("alarmd is not running") == true)
        #expect(try h.cli("check").lines.last == "verdict: fail: it will not ring audibly as set")
    }

    @Test("a sound that will not play: warning, the default tone plays instead, exit 1")
    func missingSound() throws {
        let h = try CheckHarness(device: "null")
        defer { h.shutdown() }
        try h.start()
        #expect(try h.cli("add", later, "--id", "work", "--sound", "birds.wav").status == 0)
        let (status, json, _) = try h.check()
        #expect(status == 1)
        #expect((json as? [String: Any])?["verdict"] as? String == "warning")
        let sound = try #require(checks(json)["sound"])
        #expect(sound["status"] as? String == "warning")
        #expect((sound["message"] as? String)?.contains("'birds.wav' was not found") == true)
        #expect((sound["message"] as? String)?.contains("the default tone (880 Hz beeps) plays instead") == true)
        // Once the file is there, it plays as chosen.
        try Recording.writeSineWAV(path: h.soundsDir + "/birds.wav", frequency: 440, seconds: 1)
        let fixed = try h.check()
        #expect(fixed.status == 0, "\(fixed.result.stdout)")
        #expect((checks(fixed.json)["sound"]?["message"] as? String)?.hasPrefix("'birds.wav' plays (WAV") == true)
    }

    @Test("no card behind the device and none in the chain opens: fail, exit 2")
    func noDevice() throws {
        let h = try CheckHarness(device: "hw:99")
        defer { h.shutdown() }
        try h.start()
        #expect(try h.cli("add", later, "--id", "work").status == 0)
        let (status, json, r) = try h.check()
        let device = try #require(checks(json)["device"])
        #expect((device["message"] as? String)?.contains("'hw:99': snd_pcm_open failed") == true, "\(device)")
        if FileManager.default.fileExists(atPath: "/dev/snd/controlC0") {
            // A machine with a sound card: its plughw ends the chain and may well open.
            #expect(status >= 1)
        } else {
            #expect(status == 2, "\(r.stdout)")
            #expect(device["status"] as? String == "fail")
            #expect((device["message"] as? String)?.contains("the alarm will be silent") == true)
        }
    }

    @Test(
        "the configured device does not open, 'default' does: warning naming the device that will be used; nothing is played"
    )
    func chainFallback() throws {
        let h = try CheckHarness(device: "hw:99", workingDefault: true)
        defer { h.shutdown() }
        try h.start()
        #expect(try h.cli("add", later, "--id", "work").status == 0)
        let (status, json, _) = try h.check()
        #expect(status == 1)
        let device = try #require(checks(json)["device"])
        #expect(device["status"] as? String == "warning")
        #expect((device["message"] as? String)?.contains("'default' of the chain will be used") == true, "\(device)")
        // Opened, not played: alsa-lib's file plugin wrote its WAV header and not one frame.
        let size = (try? FileManager.default.attributesOfItem(atPath: h.recordedPath)[.size] as? Int) ?? 0
        #expect(size <= 44, "the probe wrote \(size) bytes: frames were played")
    }

    @Test("a device that opens through alsa-lib's file plugin: ok, and not one frame written")
    func silentProbe() throws {
        let h = try CheckHarness(device: "recplug")
        defer { h.shutdown() }
        try h.start()
        try Recording.writeSineWAV(path: h.soundsDir + "/a440.wav", frequency: 440, seconds: 1.5)
        #expect(try h.cli("add", later, "--id", "work", "--sound", "a440.wav").status == 0)
        let (status, json, r) = try h.check()
        #expect(status == 0, "\(r.stdout)")
        #expect(checks(json)["device"]?["message"] as? String == "ALSA device 'recplug' opens")
        #expect(FileManager.default.fileExists(atPath: h.recordedPath), "the device was opened")
        let size = (try? FileManager.default.attributesOfItem(atPath: h.recordedPath)[.size] as? Int) ?? -1
        #expect(size == 44, "a WAV header and no frames, got \(size) bytes")
    }

    @Test("the clock not synchronized (STA_UNSYNC): warning, exit 1")
    func clockUnsync() throws {
        let h = try CheckHarness(device: "null", clock: "unsync")
        defer { h.shutdown() }
        try h.start()
        #expect(try h.cli("add", later, "--id", "work").status == 0)
        let (status, json, _) = try h.check()
        #expect(status == 1)
        #expect(statuses(json)["clock"] == "warning")
        #expect((checks(json)["clock"]?["message"] as? String)?.contains("STA_UNSYNC") == true)
    }

    @Test("no alarm, an unknown id: fail, exit 2; --all: an array, soonest first; an id and --all: a usage error")
    func targets() throws {
        let h = try CheckHarness(device: "null")
        defer { h.shutdown() }
        try h.start()
        let none = try h.check()
        #expect(none.status == 2)
        #expect((none.json as? [String: Any])?["alarm"] is NSNull)
        #expect(statuses(none.json)["alarm"] == "fail")
        #expect(try h.cli("check", "--all", "--json").stdout.contains("\"verdict\" : \"fail\""))

        // Ten hours away, so "soon" (in 3 h) comes first at any time of day.
        #expect(try h.cli("add", "--in", "10h", "--id", "late").status == 0)
        #expect(try h.cli("add", "--in", "3h", "--id", "soon").status == 0)
        let unknown = try h.check("nap")
        #expect(unknown.status == 2)
        #expect((unknown.json as? [String: Any])?["alarm"] as? String == "nap")
        let named = try h.check("late")
        #expect((named.json as? [String: Any])?["alarm"] as? String == "late")
        #expect(named.status == 0, "\(named.result.stdout)")
        let next = try h.check()
        #expect((next.json as? [String: Any])?["alarm"] as? String == "soon", "the next to ring by default")

        let all = try h.cli("check", "--all", "--json")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [[String: Any]])
        #expect(list.compactMap { $0["alarm"] as? String } == ["soon", "late"])
        #expect(all.status == 0)
        let human = try h.cli("check", "--all")
        #expect(human.stdout.contains("alarm 'soon'") && human.stdout.contains("alarm 'late'"))
        #expect(human.lines.last == "overall: ok: it will ring as set")
        #expect(try h.cli("check", "late", "--all").status == 64)
    }

    @Test("a user outside the group: what status.json says alarmd will ring, and the system checks")
    func outsider() throws {
        let h = try CheckHarness(device: "null")
        defer { h.shutdown() }
        try h.start()
        #expect(try h.cli("add", later, "--id", "work").status == 0)
        #expect(h.wait { (h.status()?["next"] as? [String: Any])?["id"] as? String == "work" })
        // As the package sets it up: the state directory closed to others, the runtime directory
        // (status.json) open, the FIFO for the group only.
        chmod(h.stateDir, 0o770)
        chmod(h.runtimeDir, 0o755)
        chmod(h.root, 0o755)
        let r = try Binaries.runAbsolute(
            "/usr/bin/setpriv",
            [
                "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                try Binaries.reachablePath("alarm"), "check", "--json",
            ],
            environment: h.environment)
        let o = try #require(
            try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout) \(r.stderr)")
        #expect(o["alarm"] as? String == "work", "from status.json: \(o)")
        #expect(statuses(o)["daemon"] == "ok", "alarmd runs, seen through its lock")
        #expect(statuses(o)["alarm"] == "warning", "its sound could not be checked")
        #expect(statuses(o)["storage"] == "ok" && statuses(o)["device"] == "ok")
        #expect(r.status == 1)
    }
}
