import AlarmTestSupport
import Foundation
import Testing

/// alarmd and alarm as processes, through the real FIFO, playing into a PulseAudio null sink
/// whose monitor is recorded: what came out, and when.
@Suite("alarmd end to end (PulseAudio null sink)", .serialized)
struct DaemonTests {
    static let a440 = DaemonHarness.a440

    func harness(config: String = "ring = 30s\n", environment: [String: String?] = [:]) throws -> DaemonHarness {
        let h = try DaemonHarness(config: config, withA440: true)
        for (k, v) in environment { h.environment[k] = v }
        try h.start()
        return h
    }

    /// The recorded sound from `start` for `seconds`: which of 440 Hz (our clip) and 880 Hz
    /// (the default tone) dominates.
    func tone(_ h: DaemonHarness, from start: Int, seconds: Double = 0.5) -> Double {
        let end = start + Int(seconds * Double(h.rate))
        #expect(h.wait(10) { h.recorder.count >= end }, "the recording stopped: \(h.recordingDiagnosis)")
        let s = h.recorder.samples
        return Recording.dominant(s[start..<min(end, s.count)], among: [440, 880], rate: h.rate)
    }

    /// Stops with `alarm stop` and checks that silence follows within half a second and lasts.
    func stopAndExpectSilence(_ h: DaemonHarness) throws {
        let r = try h.cli("stop")
        #expect(r.status == 0, "\(r.stderr) \(r.stdout) \(h.log)")
        let mark = h.recorder.count
        #expect(
            h.wait(10) { h.recorder.count >= mark + h.rate * 3 / 2 },
            "the recording stopped after the stop: \(h.recordingDiagnosis)")
        let s = h.recorder.samples
        // Allow up to 0.5 s of sound already in flight, then one second of exact quiet.
        let quiet = Recording.firstSilence(s, from: mark, length: h.rate, threshold: 50)
        #expect(quiet != nil && quiet! - mark < h.rate / 2, "no silence within 0.5 s of stop")
    }

    @Test("an alarm rings at its second with the right sound; stop silences it; a --once alarm is gone")
    func ringsOnTime() throws {
        let h = try harness()
        defer { h.shutdown() }
        let at = h.wallTime(in: "Europe/Berlin", secondsFromNow: 4)
        let added = try h.cli("add", at.text, "--once", "--id", "tea", "--sound", Self.a440)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("tea"))
        #expect(try h.cli("list", "--json").stdout.contains("\"tea\""))

        let startIndex = h.recorder.count
        let onset = try #require(h.recorder.waitForSound(from: startIndex, timeout: 30), "nothing was heard: \(h.log)")
        #expect(tone(h, from: onset) == 440)
        let status = try #require(h.status())
        #expect(status.string("state") == "ringing")
        #expect(status.string("alarm") == "tea")
        #expect(status.string("sound") == Self.a440)
        #expect(status["reason"] is NSNull)

        try stopAndExpectSilence(h)
        #expect(h.status()?.string("state") == "idle")
        #expect(
            !(try h.cli("list", "--json").stdout.contains("\"tea\"")), "a --once alarm must be removed after it rang")

        // It rang at its second: the first frame went to ALSA within a second of the instant.
        let entry = try #require(h.history().first { $0.string("alarm") == "tea" })
        #expect(entry.string("outcome") == "stopped")
        let scheduled = try #require(entry.string("scheduled").flatMap(parseRFC3339))
        let started = try #require(entry.string("started").flatMap(parseRFC3339))
        #expect(abs(scheduled.timeIntervalSince(at.instant)) < 0.001)
        #expect(
            started >= scheduled && started.timeIntervalSince(scheduled) < 1.0, "started \(started) for \(scheduled)")
        #expect(entry["late"] as? Bool == false)
    }

    @Test("snooze 5s silences it and it rings again 5 s later")
    func snooze() throws {
        let h = try harness()
        defer { h.shutdown() }
        #expect(try h.cli("add", "--in", "2s", "--id", "nap", "--sound", Self.a440).status == 0)
        let first = try #require(
            h.recorder.waitForSound(from: h.recorder.count, timeout: 30), "nothing was heard: \(h.log)")
        _ = first
        let r = try h.cli("snooze", "5s")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("snoozed until "))
        #expect(h.status()?.string("state") == "snoozed")
        let mark = h.recorder.count
        #expect(
            h.wait(10) { h.recorder.count >= mark + h.rate },
            "the recording stopped after the snooze: \(h.recordingDiagnosis)")
        let quiet = try #require(
            Recording.firstSilence(h.recorder.samples, from: mark, length: h.rate / 2, threshold: 50))
        #expect(quiet - mark < h.rate / 2, "snooze must silence it at once")
        let again = try #require(
            h.recorder.waitForSound(from: quiet, timeout: 30), "it did not ring again after the snooze")
        let gap = Double(again - quiet) / Double(h.rate)
        #expect(gap > 4.0 && gap < 6.5, "rang again after \(gap) s of silence, expected about 5 s")
        #expect(tone(h, from: again) == 440)
        #expect(h.status()?.string("state") == "ringing")
        try stopAndExpectSilence(h)
        let outcomes = h.history().filter { $0.string("alarm") == "nap" }.compactMap { $0.string("outcome") }
        #expect(outcomes == ["snoozed", "stopped"])
    }

    @Test("a bad sound rings the default tone, with the reason in status and history")
    func badSound() throws {
        let h = try harness()
        defer { h.shutdown() }
        var junk = [UInt8](repeating: 0, count: 4096)
        for i in junk.indices { junk[i] = UInt8.random(in: 0...255) }
        _ = FileManager.default.createFile(atPath: h.soundsDir + "/broken.wav", contents: Data(junk))
        let added = try h.cli("add", "--in", "2s", "--id", "bad", "--sound", "broken.wav")
        #expect(added.status == 0, "a sound that will not play is a warning, not an error")
        #expect(added.stderr.contains("warning") && added.stderr.contains("broken.wav"), "\(added.stderr)")
        let onset = try #require(
            h.recorder.waitForSound(from: h.recorder.count, timeout: 30), "the alarm stayed silent: \(h.log)")
        #expect(tone(h, from: onset, seconds: 0.4) == 880, "the default tone must ring")
        let status = try #require(h.status())
        #expect(status.string("sound") == "default")
        #expect(status.string("reason")?.contains("broken.wav") == true, "\(status)")
        try stopAndExpectSilence(h)
        let entry = try #require(h.history().first { $0.string("alarm") == "bad" })
        #expect(entry.string("sound") == "default")
        #expect(entry.string("reason")?.contains("broken.wav") == true)
    }

    @Test("garbage on the FIFO changes nothing and the daemon keeps serving")
    func garbage() throws {
        let h = try harness()
        defer { h.shutdown() }
        #expect(try h.cli("add", "Mon..Fri 06:30", "--id", "work").status == 0)
        #expect(h.wait(10) { (h.status()?["next"] as? [String: Any])?["id"] as? String == "work" })
        let before = try #require(h.status())
        var lines: [[UInt8]] = [
            Array("explode\n".utf8), Array("snooze banana\n".utf8), Array("stop now please\n".utf8),
            [0, 1, 2, 255, 254, 10], Array(repeating: UInt8(ascii: "x"), count: 100_000) + [10], Array("sto".utf8),
        ]
        var random = [UInt8](repeating: 0, count: 65536)
        for i in random.indices { random[i] = UInt8.random(in: 0...255) }
        lines.append(random)
        let garbage = lines
        // Many writers at once, some closing mid-line; two of them also send the big ones
        // (the reliability suite of issue #6 pushes far more through the FIFO).
        DispatchQueue.concurrentPerform(iterations: 20) { i in
            guard let fd = FileHandle(forWritingAtPath: h.fifoPath) else { return }
            for line in garbage where i < 2 || line.count < 1000 { fd.write(Data(line)) }
            try? fd.close()
        }
        // It reads the garbage (and says so), and a second on it has neither died nor changed.
        #expect(h.wait(10) { h.log.contains("ignored control line") }, "\(h.log)")
        Thread.sleep(forTimeInterval: 1)
        #expect(h.isRunning, "alarmd died: \(h.log)")
        let after = try #require(h.status())
        #expect(after.string("state") == "idle")
        #expect(NSDictionary(dictionary: after).isEqual(to: before), "garbage changed the status: \(before) → \(after)")
        // Still serving real commands.
        let ring = try h.cli("ring", "--sound", Self.a440)
        #expect(ring.status == 0, "\(ring.stderr) \(h.log)")
        let onset = try #require(h.recorder.waitForSound(from: h.recorder.count, timeout: 30))
        #expect(tone(h, from: onset) == 440)
        try stopAndExpectSilence(h)
    }

    @Test("kill -9 while snoozed, restart: it still rings when the snooze ends")
    func crashWhileSnoozed() throws {
        let h = try harness()
        defer { h.shutdown() }
        #expect(try h.cli("add", "--in", "2s", "--id", "crash", "--sound", Self.a440).status == 0)
        _ = try #require(h.recorder.waitForSound(from: h.recorder.count, timeout: 30), "nothing was heard: \(h.log)")
        #expect(try h.cli("snooze", "6s").status == 0)
        let snoozedAt = Date()
        h.crash()
        #expect(try h.cli("stop").status != 0, "no daemon: stop must fail")
        try h.start()
        #expect(h.status()?.string("state") == "snoozed", "the restarted daemon must know it is snoozed")
        let mark = h.recorder.count
        let again = try #require(
            h.recorder.waitForSound(from: mark, timeout: 30), "the snooze was lost in the crash: \(h.log)")
        let elapsed = Date().timeIntervalSince(snoozedAt) - Double(h.recorder.count - again) / Double(h.rate)
        #expect(elapsed > 5 && elapsed < 8.5, "rang again \(elapsed) s after snooze 6s")
        #expect(tone(h, from: again) == 440)
        try stopAndExpectSilence(h)
    }

    @Test("kill -9 while snoozed, restart, stop while still snoozed: history ends with stopped (issue #23)")
    func crashWhileSnoozedThenStop() throws {
        let h = try harness()
        defer { h.shutdown() }
        #expect(try h.cli("add", "--in", "2s", "--id", "crash", "--sound", Self.a440).status == 0)
        _ = try #require(h.recorder.waitForSound(from: h.recorder.count, timeout: 30), "nothing was heard: \(h.log)")
        #expect(try h.cli("snooze", "10m").status == 0)
        h.crash()
        try h.start()
        #expect(h.status()?.string("state") == "snoozed", "the restarted daemon must know it is snoozed")
        let stop = try h.cli("stop")
        #expect(stop.status == 0, "\(stop)")
        let json = try h.cli("history", "--json")
        #expect(json.status == 0)
        let entries = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let mine = entries.filter { $0["alarm"] as? String == "crash" }
        #expect(mine.map { $0["outcome"] as? String } == ["snoozed", "stopped"], "\(entries)")
        #expect(mine.last?["reason"] as? String == "stopped while snoozed")
    }

    @Test("an alarm missed while the daemon was down rings late at start")
    func missedWhileDown() throws {
        let h = try harness()
        defer { h.shutdown() }
        #expect(try h.cli("add", "--in", "3s", "--id", "late", "--sound", Self.a440).status == 0)
        #expect(h.stop() == 0, "SIGTERM must stop alarmd cleanly: \(h.log)")
        Thread.sleep(forTimeInterval: 5)
        let mark = h.recorder.count
        #expect(
            Recording.firstSound(h.recorder.samples, from: 0, threshold: 1000) == nil,
            "nothing may ring while it is down")
        try h.start()
        let onset = try #require(
            h.recorder.waitForSound(from: mark, timeout: 30), "the missed alarm did not ring at start: \(h.log)")
        #expect(tone(h, from: onset) == 440)
        try stopAndExpectSilence(h)
        let entry = try #require(h.history().first { $0.string("alarm") == "late" })
        #expect(entry["late"] as? Bool == true)
        #expect(entry.string("outcome") == "stopped")
    }

    @Test("a zone swap moves a floating alarm, not a pinned or an absolute one")
    func zoneSwap() throws {
        // Short rings that silence themselves, so the alarms below do not overlap.
        let h = try harness(config: "ring = 2s\n")
        defer { h.shutdown() }
        // Floating at New York's wall time 10 s from now: 6 h away while the zone is Berlin.
        let ny = h.wallTime(in: "America/New_York", secondsFromNow: 10)
        // Floating at Berlin's wall time 16 s from now: after the swap that is 6 h away.
        let berlin = h.wallTime(in: "Europe/Berlin", secondsFromNow: 16)
        // Pinned to Berlin, 22 s from now: must ring whatever the system zone.
        let pinned = h.wallTime(in: "Europe/Berlin", secondsFromNow: 22)
        #expect(try h.cli("add", ny.text, "--id", "floating-ny", "--once").status == 0)
        #expect(try h.cli("add", berlin.text, "--id", "floating-berlin", "--once").status == 0)
        #expect(try h.cli("add", pinned.text + " Europe/Berlin", "--id", "pinned", "--once").status == 0)
        #expect(try h.cli("add", "--in", "28s", "--id", "absolute").status == 0)
        #expect(h.wait(10) { (h.status()?["next"] as? [String: Any])?["id"] as? String == "floating-berlin" })

        try h.setZone("America/New_York")
        #expect(
            h.wait(2) { (h.status()?["next"] as? [String: Any])?["id"] as? String == "floating-ny" },
            "the zone change was not seen within 2 s: \(String(describing: h.status())) \(h.log)")

        #expect(h.wait(40) { h.history().contains { $0.string("alarm") == "absolute" } }, "\(h.log)")
        Thread.sleep(forTimeInterval: 3)
        // An occurrence may have several entries (with `ring = 2s` a ring snoozes itself, and the
        // next alarm then supersedes that snooze: snoozed, silenced), all with its `scheduled`.
        let rang = Dictionary(
            h.history().compactMap { e -> (String, Date)? in
                guard let id = e.string("alarm"), let s = e.string("scheduled").flatMap(parseRFC3339) else {
                    return nil
                }
                return (id, s)
            }, uniquingKeysWith: { first, _ in first })
        #expect(
            rang["floating-ny"].map { abs($0.timeIntervalSince(ny.instant)) < 1 } == true,
            "floating alarm follows the new zone: \(rang)")
        #expect(
            rang["pinned"].map { abs($0.timeIntervalSince(pinned.instant)) < 1 } == true,
            "pinned keeps Berlin's time: \(rang)")
        #expect(rang["absolute"] != nil)
        #expect(rang["floating-berlin"] == nil, "a floating Berlin wall time is now 6 h away: \(rang)")
        let list = try h.cli("list", "--json").stdout
        #expect(list.contains("floating-berlin"))
    }

    @Test("a missing sound card: the next device of the fallback list rings, and the ALSA error is logged")
    func missingCard() throws {
        // `default`, the next device of the list, is the null sink's server, named here rather
        // than left to a distribution's ALSA hook for a running sound server (Debian's pulseaudio
        // ships one; the arm64 root of scripts/test-arm64 runs without it).
        let conf = FileManager.default.temporaryDirectory.path + "/alarm-default-pulse-\(UUID().uuidString).conf"
        try "pcm.!default { type pulse }\nctl.!default { type pulse }\n".write(
            toFile: conf, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: conf) }
        let h = try harness(environment: [
            "ALARM_DEVICE": "hw:7", "ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:" + conf,
        ])
        defer { h.shutdown() }
        #expect(try h.cli("add", "--in", "2s", "--id", "fallback", "--sound", Self.a440).status == 0)
        let onset = try #require(
            h.recorder.waitForSound(from: h.recorder.count, timeout: 30), "no fallback rang: \(h.log)")
        #expect(tone(h, from: onset) == 440)
        #expect(h.log.contains("hw:7"), "the failing device must be logged with ALSA's error: \(h.log)")
        try stopAndExpectSilence(h)
    }

    @Test("no sound device at all: the failure is logged and recorded, and alarmd keeps serving")
    func noDevice() throws {
        // No PulseAudio server reachable and no card: every device of the fallback list fails.
        let h = try harness(
            config: "ring = 3s\n",
            environment: [
                "ALARM_DEVICE": "hw:7", "PULSE_SERVER": "unix:/nonexistent/native", "XDG_RUNTIME_DIR": "/nonexistent",
            ])
        defer { h.shutdown() }
        #expect(try h.cli("add", "--in", "1s", "--id", "mute").status == 0)
        #expect(
            h.wait(10) { h.status()?.string("reason")?.contains("ALSA device") == true },
            "status must say why nothing plays: \(String(describing: h.status()))")
        #expect(h.wait(15) { h.history().contains { $0.string("alarm") == "mute" } }, "\(h.log)")
        let entry = try #require(h.history().first { $0.string("alarm") == "mute" })
        #expect(entry.string("outcome") == "failed", "\(entry)")
        #expect(h.log.contains("hw:7") && h.log.contains("<"), "\(h.log)")
        #expect(h.isRunning)
        #expect(try h.cli("status").status == 0)
    }

    @Test("a FIFO path taken by something else: alarmd refuses to start and says why")
    func fifoPathTaken() throws {
        let h = try DaemonHarness()
        defer { h.shutdown() }
        try FileManager.default.createDirectory(atPath: h.runtimeDir, withIntermediateDirectories: true)
        try "not a fifo".write(toFile: h.fifoPath, atomically: true, encoding: .utf8)
        let r = try Binaries.run("alarmd", [], environment: h.environment, timeout: 20)
        #expect(r.status != 0)
        #expect(r.stderr.contains("not a FIFO"), "\(r.stderr)")
        #expect(try String(contentsOfFile: h.fifoPath, encoding: .utf8) == "not a fifo", "the file must be left alone")
    }

    @Test(
        "a clock set is noticed at once and the schedule recomputed",
        .enabled(if: Privileges.canSetClock, "setting the clock needs root with CAP_SYS_TIME"))
    func clockSet() throws {
        let h = try harness()
        defer { h.shutdown() }
        #expect(try h.cli("add", "--in", "4s", "--id", "after-set", "--sound", Self.a440).status == 0)
        // Set the clock to its own value: a discontinuous set, as NTP's first sync does, with no
        // real jump (a jump would disturb everything else running on this machine).
        // Under the guard the TimerFD tests (another test process, in CI) share: they assert that
        // their timers fire, which this set would cancel.
        var now = timespec()
        let set = RealtimeClockGuard.shared.exclusive {
            clock_gettime(CLOCK_REALTIME, &now)
            return clock_settime(CLOCK_REALTIME, &now)
        }
        #expect(set == 0)
        #expect(h.wait(3) { h.log.contains("the system clock was set") }, "\(h.log)")
        let onset = try #require(
            h.recorder.waitForSound(from: h.recorder.count, timeout: 30), "the alarm was lost: \(h.log)")
        #expect(tone(h, from: onset) == 440)
        try stopAndExpectSilence(h)
        #expect(h.history().filter { $0.string("alarm") == "after-set" }.count == 1)
    }

    @Test("SIGHUP reloads the config file: a new snooze default applies; a broken file keeps the old one")
    func sighupReload() throws {
        let h = try harness()
        defer { h.shutdown() }
        let pid = try #require(h.pid)
        try "ring = 30s\nsnooze = 3s\n".write(toFile: h.root + "/alarm.conf", atomically: true, encoding: .utf8)
        kill(pid, SIGHUP)
        #expect(h.wait(10) { h.log.contains("reloading the configuration") }, "\(h.log)")
        try "snooze = banana\n".write(toFile: h.root + "/alarm.conf.broken", atomically: true, encoding: .utf8)
        #expect(try h.cli("add", "--in", "2s", "--id", "hup", "--sound", Self.a440).status == 0)
        _ = try #require(h.recorder.waitForSound(from: h.recorder.count, timeout: 30), "nothing was heard: \(h.log)")
        let r = try h.cli("snooze")
        #expect(r.status == 0, "\(r.stderr)")
        let until = try #require(h.status()?.string("snoozed_until").flatMap(parseRFC3339))
        #expect(
            until.timeIntervalSinceNow < 4 && until.timeIntervalSinceNow > 0,
            "snooze must use the reloaded 3 s default, got \(until)")
        // A broken config on reload: logged, and the old settings stay.
        try FileManager.default.removeItem(atPath: h.root + "/alarm.conf")
        try FileManager.default.moveItem(atPath: h.root + "/alarm.conf.broken", toPath: h.root + "/alarm.conf")
        kill(pid, SIGHUP)
        #expect(h.wait(10) { h.log.contains("was not reloaded") }, "\(h.log)")
        #expect(h.isRunning)
        // The CLI reads the same broken file: stop must still work, with a warning.
        #expect(try h.cli("status").stderr.contains("warning: config file"))
        try stopAndExpectSilence(h)
    }

    @Test("a store broken while alarmd was down: it rings the previous list from the backup and leaves the file alone")
    func corruptStoreAtStart() throws {
        let h = try harness()
        defer { h.shutdown() }
        #expect(try h.cli("add", "--in", "6s", "--id", "kept", "--sound", Self.a440).status == 0)
        #expect(try h.cli("add", "Mon..Fri 06:30", "--id", "work").status == 0)  // the backup now holds 'kept'
        #expect(h.stop() == 0)
        let broken = "{ this is not an alarm list"
        try broken.write(toFile: h.stateDir + "/alarms.json", atomically: true, encoding: .utf8)
        try h.start()
        #expect(h.wait(10) { h.log.contains("alarms.json.bak") }, "\(h.log)")
        let onset = try #require(
            h.recorder.waitForSound(from: h.recorder.count, timeout: 30), "silent morning: \(h.log)")
        #expect(tone(h, from: onset) == 440)
        try stopAndExpectSilence(h)
        #expect(try String(contentsOfFile: h.stateDir + "/alarms.json", encoding: .utf8) == broken)
    }

    @Test("alarm stop, snooze and ring without a daemon fail fast and say so")
    func noDaemon() throws {
        let root = FileManager.default.temporaryDirectory.path + "/alarm-nodaemon-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root + "/run", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        // A FIFO with no reader: the worst case for a careless writer (it would block).
        #expect(mkfifo(root + "/run/control", 0o620) == 0)
        let env = ["ALARM_STATE_DIR": root + "/state", "ALARM_RUNTIME_DIR": root + "/run", "ALARM_CONFIG": "/dev/null"]
        for args in [["stop"], ["snooze"], ["snooze", "5m"], ["ring"]] {
            let start = Date()
            let r = try Binaries.run("alarm", args, environment: env, timeout: 10)
            #expect(r.status != 0)
            #expect(r.stderr.contains("alarmd is not running"), "\(r.stderr)")
            #expect(Date().timeIntervalSince(start) < 2, "\(args) took \(Date().timeIntervalSince(start)) s")
        }
        let status = try Binaries.run("alarm", ["status"], environment: env)
        #expect(status.status != 0)
        #expect(status.stdout.contains("alarmd is not running"))
    }

    @Test(
        "status.json rewritten on its own while the stop waits in the FIFO: the CLI waits for the command count, then confirms"
    )
    func unrelatedStatusWriteIsNoAnswer() throws {
        let root = FileManager.default.temporaryDirectory.path + "/alarm-standin-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root + "/run", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let fifo = root + "/run/control"
        let status = root + "/run/status.json"
        #expect(mkfifo(fifo, 0o620) == 0)
        // A stand-in for a busy alarmd: it holds the FIFO open, and writes status.json as alarmd
        // does (a new file renamed into place).
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        try #require(reader >= 0)
        defer { close(reader) }
        @Sendable func write(_ state: String, commands: Int) {
            let json =
                "{\"state\":\"\(state)\",\"alarm\":null,\"sound\":\"default\",\"reason\":null,\"snoozed_until\":null,\"next\":null,\"warnings\":[],\"commands\":\(commands)}\n"
            try? json.write(toFile: status + ".new", atomically: false, encoding: .utf8)
            rename(status + ".new", status)
        }
        write("ringing", commands: 7)
        let standIn = Thread {
            // Its ring's sound starts (status rewritten, the line not handled yet), and only
            // 3 s later it gets to the stop line.
            Thread.sleep(forTimeInterval: 0.4)
            write("ringing", commands: 7)
            Thread.sleep(forTimeInterval: 2.8)
            var buffer = [UInt8](repeating: 0, count: 64)
            let n = read(reader, &buffer, buffer.count)
            write(
                n > 0 && String(decoding: buffer[0..<n], as: UTF8.self).split(separator: "\n") == ["stop"]
                    ? "idle" : "ringing", commands: 8)
        }
        standIn.start()
        let env = ["ALARM_STATE_DIR": root + "/state", "ALARM_RUNTIME_DIR": root + "/run", "ALARM_CONFIG": "/dev/null"]
        let start = Date()
        let r = try Binaries.run("alarm", ["stop"], environment: env, timeout: 20)
        let took = Date().timeIntervalSince(start)
        #expect(r.status == 0, "alarm stop: \(r.stderr)")
        #expect(r.stdout.contains("stopped"), "\(r.stdout)")
        #expect(took > 3, "the stop was confirmed only after 3.2 s, yet the CLI ended after \(took) s")
    }
}

func parseRFC3339(_ s: String) -> Date? {
    let f = ISO8601DateFormatter()
    f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    if let d = f.date(from: s) { return d }
    f.formatOptions = [.withInternetDateTime]
    return f.date(from: s)
}
