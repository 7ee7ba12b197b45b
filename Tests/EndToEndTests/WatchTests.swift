import AlarmTestSupport
import Foundation
import Testing

/// Issue #13: `alarm watch [--json]` against a real alarmd: a full ring (heard on the PulseAudio
/// sink), a snooze, the ring again, a stop, a missed alarm across a restart; and a watch started
/// in the middle of a burst of events.
@Suite("alarm watch end to end (issue #13)", .serialized)
struct WatchTests {
    static let a440 = DaemonHarness.a440

    func harness(config: String, environment: [String: String] = [:]) throws -> DaemonHarness {
        let h = try DaemonHarness(config: config, withA440: true)
        for (k, v) in environment { h.environment[k] = v }
        try h.start()
        return h
    }

    @Test(
        "ringing, snoozed, ringing, stopped and missed, each with alarm, label, scheduled, at and sound; as JSON and as text; seq goes on across a restart"
    )
    func fullRing() throws {
        let h = try harness(config: "ring = 30s\ngrace = 3s\n")
        defer { h.shutdown() }
        let json = try Follower(h, "alarm", ["watch", "--json"], output: h.root + "/watch.json")
        let text = try Follower(h, "alarm", ["watch"], output: h.root + "/watch.txt")
        defer {
            json.stop()
            text.stop()
        }
        #expect(json.waitUntilWatching() && text.waitUntilWatching(), "alarm watch did not start watching")

        #expect(try h.cli("add", "--in", "2s", "--id", "wake", "--label", "Wake up", "--sound", Self.a440).status == 0)
        _ = try #require(h.recorder.waitForSound(from: h.recorder.count, timeout: 30), "nothing was heard: \(h.log)")
        #expect(
            h.wait(10) { json.objects.contains { $0["event"] as? String == "ringing" } },
            "no ringing event: \(json.text)")
        #expect(try h.cli("snooze", "3s").status == 0)
        let mark = h.recorder.count
        #expect(h.wait(10) { h.recorder.count > mark + h.rate / 2 })
        let quiet = try #require(
            Recording.firstSilence(h.recorder.samples, from: mark, length: h.rate / 4, threshold: 50))
        _ = try #require(h.recorder.waitForSound(from: quiet, timeout: 30), "it did not ring again after the snooze")
        #expect(h.wait(10) { json.objects.filter { $0["event"] as? String == "ringing" }.count == 2 }, "\(json.text)")
        #expect(try h.cli("stop").status == 0)
        #expect(
            h.wait(10) { json.objects.contains { $0["event"] as? String == "stopped" } },
            "no stopped event: \(json.text)")

        // Missed: due while alarmd is down, found at its next start past the 3 s grace window.
        #expect(try h.cli("add", "--in", "2s", "--id", "gone", "--label", "Too late").status == 0)
        #expect(h.stop() == 0, "SIGTERM must stop alarmd cleanly: \(h.log)")
        Thread.sleep(forTimeInterval: 6)
        try h.start()
        #expect(
            h.wait(10) { json.objects.contains { $0["event"] as? String == "missed" } },
            "no missed event: \(json.text)\n\(h.log)")
        #expect(h.wait(10) { text.lines.contains { $0.contains(" missed gone ") } }, "\(text.text)")
        // Both followers have shown all the log holds (they follow it: they may be a line behind).
        func shown() -> [String] { text.lines.filter { !$0.hasPrefix("alarmd is not running") } }
        #expect(
            h.wait(10) { json.objects.count == h.events().count && shown().count == h.events().count },
            "log \(h.events().count) lines, alarm watch --json \(json.objects.count), alarm watch \(shown().count)")

        let events = json.objects
        // The pre-flight may warn before the ring (this machine's clock is not synchronized).
        let warnings = events.filter { $0["event"] as? String == "preflight-warning" }
        for w in warnings {
            #expect(["wake", "gone"].contains(w["alarm"] as? String ?? "") && w["reason"] is String, "\(w)")
        }
        let mine = events.filter { $0["alarm"] as? String == "wake" && $0["event"] as? String != "preflight-warning" }
        #expect(
            mine.compactMap { $0["event"] as? String } == ["ringing", "snoozed", "ringing", "stopped"], "\(json.text)")
        let history = h.history().filter { $0.string("alarm") == "wake" }
        let scheduled = try #require(history.first?.string("scheduled"))
        for e in mine {
            for key in ["seq", "event", "at", "alarm", "label", "scheduled", "sound"] {
                #expect(e[key] != nil, "\(key) missing in \(e)")
            }
            #expect(e["label"] as? String == "Wake up")
            #expect(e["scheduled"] as? String == scheduled, "the occurrence's instant, as history has it")
            #expect(e["sound"] as? String == Self.a440)
            #expect((e["at"] as? String).flatMap(parseRFC3339) != nil)
        }
        #expect(mine[1]["until"] is String, "a snooze says until when")
        let missed = try #require(events.first { $0["event"] as? String == "missed" })
        #expect(missed["alarm"] as? String == "gone")
        #expect(
            missed["label"] as? String == "Too late", "the alarm is gone by then (rings once); its label still comes")
        #expect(missed["sound"] is NSNull)
        #expect((missed["reason"] as? String)?.contains("grace") == true)
        #expect(events.contains { $0["event"] as? String == "alarms-changed" })
        // One log across the restart: seq 1, 2, 3 …, each once, as alarmd wrote them.
        let seqs = events.compactMap { $0["seq"] as? Int }
        #expect(seqs == Array(1...(seqs.last ?? 0)), "\(seqs)")
        #expect(seqs.count == h.events().count)
        // The text form: one line per event, the same events.
        let lines = shown()
        #expect(lines.count == events.count, "\(text.text)")
        #expect(
            lines.contains { $0.contains(" ringing wake \"Wake up\" scheduled ") && $0.contains("sound \(Self.a440)") })
        #expect(lines.contains { $0.contains(" snoozed wake \"Wake up\" ") && $0.contains(" until ") })
        #expect(lines.contains { $0.contains(" stopped wake \"Wake up\" ") })
    }

    @Test(
        "started in the middle of a burst of events, it shows every event from its start to the end of the burst, each once, in order"
    )
    func burst() throws {
        let h = try harness(config: "ring = 30s\n", environment: ["ALARM_DEVICE": "null"])
        defer { h.shutdown() }
        let pairs = 100
        let done = DispatchSemaphore(value: 0)
        let fifo = h.fifoPath
        Thread {
            let out = FileHandle(forWritingAtPath: fifo)
            for _ in 0..<pairs {
                out?.write(Data("ring\nstop\n".utf8))
                usleep(4000)
            }
            try? out?.close()
            done.signal()
        }.start()
        #expect(h.wait(30) { h.lastSeq >= 40 }, "the burst did not start: \(h.log)")
        let watch = try Follower(h, "alarm", ["watch", "--json"], output: h.root + "/watch.json")
        defer { watch.stop() }
        #expect(watch.waitUntilWatching())
        // Everything after this seq was written after alarm watch opened the log.
        let before = h.lastSeq
        #expect(done.wait(timeout: .now() + 60) == .success)
        // alarmd saves its state and history (fsync) for each ring: it may still be at it.
        #expect(h.wait(120) { h.lastSeq >= 2 * pairs }, "alarmd did not get through the burst: \(h.lastSeq)")
        #expect(before < 2 * pairs - 20, "the watch started after the burst; the test proves nothing (\(before))")
        let afterBurst = h.lastSeq
        #expect(try h.cli("ring").status == 0)
        #expect(try h.cli("stop").status == 0)
        // The CLI's confirmation can come a moment before alarmd appends the event: wait for both.
        #expect(
            h.wait(20) { h.lastSeq >= afterBurst + 2 },
            "the ring and stop after the burst are not in the log: \(h.lastSeq)")
        let last = h.lastSeq
        #expect(
            h.wait(20) { (watch.objects.last?["seq"] as? Int) == last },
            "alarm watch did not get to seq \(last): \(watch.lines.suffix(3))")
        let seqs = watch.objects.compactMap { $0["seq"] as? Int }
        let first = try #require(seqs.first)
        #expect(first <= before + 1, "events \(before + 1)..<\(first) came after the start and are missing")
        #expect(seqs == Array(first...last), "a gap or an event twice")
        #expect(watch.objects.filter { $0["event"] as? String == "ringing" }.count >= (last - first) / 2 - 1)
    }

    @Test("outside the group: refused like snooze, exit 4; --lines shows the last events first")
    func accessAndLines() throws {
        let h = try harness(config: "ring = 30s\n", environment: ["ALARM_DEVICE": "null"])
        defer { h.shutdown() }
        for _ in 0..<3 {
            #expect(try h.cli("ring").status == 0)
            #expect(try h.cli("stop").status == 0)
        }
        let last = try Follower(h, "alarm", ["watch", "--json", "--lines", "2"], output: h.root + "/last.json")
        defer { last.stop() }
        #expect(h.wait(10) { last.objects.count == 2 })
        #expect(last.objects.compactMap { $0["seq"] as? Int } == [5, 6])
        // A user who may not read the log (the tests run as root: nobody stands in).
        guard getuid() == 0 else { return }
        chmod(h.root, 0o755)
        chmod(h.runtimeDir, 0o755)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
        p.arguments = ["-u", "nobody", "--", try Binaries.reachablePath("alarm"), "watch"]
        p.environment = ProcessInfo.processInfo.environment.merging(h.environment) { $1 }
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 4, "\(message)")
        #expect(message.contains("permission denied: you are not in group 'root'"), "\(message)")
    }
}
