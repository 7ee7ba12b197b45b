import AlarmTestSupport
import Foundation
import Testing

/// Issue #13, ringing: each option through alarmd and `alarm`, heard on a PulseAudio null sink.
/// Durations come from the config so that each test takes seconds.
@Suite("ringing options end to end (issue #13, PulseAudio null sink)", .serialized)
struct RingingOptionsTests {
    /// Three sounds told apart by frequency (none is the default tone's 880 Hz).
    static let sounds: [(name: String, hz: Double)] = [("low.wav", 440), ("mid.caf", 620), ("high.aiff", 780)]

    func harness(_ config: String) throws -> DaemonHarness {
        // mixer_floor 0: the sink's own volume stays as it is, so levels are the player's.
        let h = try DaemonHarness(config: "mixer_floor = 0\n" + config)
        // Long enough that a ring never reaches the pause between loops while measured.
        for s in Self.sounds {
            // The file names say WAV, CAF, AIFF; the content is WAV, which is what is decoded.
            try Recording.writeSineWAV(path: h.soundsDir + "/" + s.name, frequency: s.hz, seconds: 8)
        }
        try h.start()
        return h
    }

    func events(_ h: DaemonHarness) -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: h.runtimeDir + "/events.jsonl", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Where each ring starts and ends on the recording: runs of sound separated by at least
    /// `gap` seconds of quiet.
    func rings(_ s: [Int16], rate: Int, gap: Double = 0.4) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var from = 0
        while let start = Recording.firstSound(s, from: from, threshold: 1000) {
            guard let end = Recording.firstSilence(s, from: start, length: Int(gap * Double(rate)), threshold: 50)
            else {
                out.append(start..<s.count)
                break
            }
            out.append(start..<end)
            from = end + Int(gap * Double(rate))
        }
        return out
    }

    /// The recording from `onset` on, with every run of silence of 2 ms or more inside it cut
    /// out, and where each was (seconds of sound before it, its length). A sine at 20 % of the
    /// clip's level passes under 50 for a small fraction of a millisecond at each zero crossing,
    /// never 2 ms.
    static func withoutGaps(_ s: [Int16], from onset: Int, rate: Int) -> ([Int16], [String]) {
        let minimum = rate / 500
        var out: [Int16] = []
        out.reserveCapacity(max(0, s.count - onset))
        var gaps: [String] = []
        var i = onset
        while i < s.count {
            var j = i
            while j < s.count, abs(Int(s[j])) < 50 { j += 1 }
            if j - i >= minimum && j < s.count {
                gaps.append(
                    String(
                        format: "%.3f s of silence after %.3f s of sound", Double(j - i) / Double(rate),
                        Double(out.count) / Double(rate)))
                i = j
                continue
            }
            if j == s.count { break }  // the recording's quiet end: not a gap (yet)
            out.append(contentsOf: s[i...j])
            i = j + 1
        }
        return (out, gaps)
    }

    @Test("--volume-from 20 --volume 80 --fade-in 4s: the level starts at 20 % and rises linearly to 80 %")
    func ramp() throws {
        let h = try harness("ring = 30s\n")
        defer { h.shutdown() }
        let added = try h.cli(
            "add", "--in", "2s", "--id", "ramp", "--sound", "low.wav", "--volume", "80", "--volume-from", "20",
            "--fade-in", "4s")
        #expect(added.status == 0, "\(added.stderr)")
        // Shown by list and list --json (an --in alarm is gone once it has rung).
        let list = try h.cli("list", "--json").stdout
        #expect(list.contains("\"volume_from\" : 20"), "\(list)")
        #expect(list.contains("\"max_snoozes\" : null") && list.contains("\"when_ignored\" : null"), "\(list)")
        #expect(try h.cli("list").stdout.contains("volume 20-80 %"))
        let onset = try #require(
            h.recorder.waitForSound(threshold: 500, from: h.recorder.count, timeout: 30), "nothing was heard: \(h.log)")
        // The fade is counted in frames played (Loudness.gain): measured on the sound's own
        // timeline, with any stretch of silence inside the ring cut out. Such a stretch is the
        // sink playing nothing while a starved player (a loaded machine) had no frame ready; it
        // would put every later frame later on the recording than on the ramp. Each one cut is
        // named in the messages below.
        var sound: [Int16] = []
        var gaps: [String] = []
        #expect(
            h.wait(20) {
                (sound, gaps) = Self.withoutGaps(h.recorder.samples, from: onset, rate: h.rate)
                return sound.count >= 6 * h.rate
            }, "6 s of sound after the onset did not come: \(sound.count) frames, gaps \(gaps)")
        // Peak of a 0.1 s window at t seconds after the onset, as a fraction of the clip's own
        // amplitude (0.5 of full scale).
        func level(at t: Double) -> Double {
            let a = Int(t * Double(h.rate))
            guard a + h.rate / 10 <= sound.count else { return -1 }
            return Double(Recording.peak(sound[a..<(a + h.rate / 10)])) / (0.5 * 32767)
        }
        for t in [0.05, 1.0, 2.0, 3.0] {
            let expected = 0.20 + 0.60 * (t + 0.05) / 4  // the window's middle
            #expect(
                abs(level(at: t) - expected) < 0.04,
                "at \(t) s: level \(level(at: t)), expected \(expected); silences cut from the recording: \(gaps)")
        }
        #expect(abs(level(at: 5.0) - 0.80) < 0.04, "after the fade: \(level(at: 5.0)); silences cut: \(gaps)")
        #expect(level(at: 1.0) < level(at: 2.0) && level(at: 2.0) < level(at: 3.0))
        #expect(try h.cli("stop").status == 0)
    }

    @Test(
        "--sound a,b,c picks one at random for each ring: each is heard over 18 rings, and history names the one heard")
    func randomPick() throws {
        // Every 2 s, each ring silenced after 1 s (when_ignored = silence: no self-snooze here).
        let h = try harness("ring = 1s\nwhen_ignored = silence\n")
        defer { h.shutdown() }
        let list = Self.sounds.map(\.name).joined(separator: ",")
        let added = try h.cli("add", "--in", "2s", "--every", "2s", "--id", "pick", "--sound", list)
        #expect(added.status == 0, "\(added.stderr)")
        // At least 18 rings, and until each sound was picked twice: 18 fair picks of 3 leave one
        // sound picked fewer than twice 2 % of the time (issue #40's hunt met it, 1 run in 25);
        // up to 60 rings, that is about 1 in 400 million. The test usually ends at 18.
        func picks() -> [String] {
            h.history().filter { $0.string("alarm") == "pick" }.compactMap { $0.string("sound") }
        }
        #expect(
            h.wait(150) {
                let p = picks()
                return p.count >= 60
                    || (p.count >= 18 && Self.sounds.allSatisfy { s in p.filter { $0 == s.name }.count >= 2 })
            },
            "18 rings, each sound picked twice, did not happen: \(picks()) \(h.log)")
        #expect(try h.cli("remove", "pick").status == 0)
        Thread.sleep(forTimeInterval: 1.5)
        let s = h.recorder.samples
        // Every ring counts, however little of it was heard: on a loaded machine the sound of a
        // 1 s ring may start most of a second late (the ring's time runs from its start, not from
        // the first frame), and a ring left out here would shift every later one against history.
        // 0.1 s of sound tells 440, 620, 780 and 880 Hz apart (10 Hz bins).
        let heard: [String] = rings(s, rate: h.rate).compactMap { r in
            guard r.count >= h.rate / 8 else { return nil }
            let from = r.lowerBound + min(h.rate / 50, r.count - h.rate / 10)
            let w = s[from..<min(r.upperBound, from + h.rate / 5)]
            let hz = Recording.dominant(w, among: Self.sounds.map(\.hz) + [880], rate: h.rate)
            return Self.sounds.first { $0.hz == hz }?.name ?? "default"
        }
        let recorded = h.history().filter { $0.string("alarm") == "pick" }.compactMap { $0.string("sound") }
        #expect(Set(recorded) == Set(Self.sounds.map(\.name)), "history: \(recorded)")
        #expect(!recorded.contains(list), "history must name the file that played, not the list")
        // What was heard, ring by ring, is what history says (the recording may hold a ring more
        // or less at its ends).
        let n = min(heard.count, recorded.count)
        #expect(n >= 16, "heard \(heard.count) rings, history \(recorded.count)")
        // On a mismatch, the evidence: each run of sound on the recording (its start after the
        // first, its length, what it sounded like) beside each ring in history (its start after the
        // first, how long it rang), so that a ring heard too briefly, two rings heard as one and a
        // ring not heard at all can be told apart.
        func layout() -> String {
            let runs = rings(s, rate: h.rate)
            let first = runs.first?.lowerBound ?? 0
            let heardRuns = runs.map { r -> String in
                let w = s[r.lowerBound..<min(r.upperBound, r.lowerBound + max(h.rate / 20, min(r.count, h.rate / 5)))]
                let hz = Recording.dominant(w, among: Self.sounds.map(\.hz) + [880], rate: h.rate)
                return String(
                    format: "+%.2f s %.2f s %.0f Hz", Double(r.lowerBound - first) / Double(h.rate),
                    Double(r.count) / Double(h.rate), hz)
            }
            let entries = h.history().filter { $0.string("alarm") == "pick" }
            func date(_ entry: [String: Any], _ key: String) -> Date? { entry.string(key).flatMap(parseRFC3339) }
            let start0 = entries.first.flatMap { date($0, "started") }
            let rang = entries.map { e -> String in
                var since = "?"
                var length = "?"
                if let started = date(e, "started") {
                    if let start0 { since = String(format: "+%.2f s", started.timeIntervalSince(start0)) }
                    if let ended = date(e, "ended") {
                        length = String(format: "%.2f s", ended.timeIntervalSince(started))
                    }
                }
                return "\(since) \(length) \(e.string("sound") ?? "?") \(e.string("outcome") ?? "?")"
            }
            return "heard runs: \(heardRuns.joined(separator: "; "))\nhistory rings: \(rang.joined(separator: "; "))"
        }
        #expect(
            Array(heard.prefix(n)) == Array(recorded.prefix(n)), "heard \(heard)\nhistory \(recorded)\n\(layout())")
        for name in Self.sounds.map(\.name) {
            #expect(
                recorded.filter { $0 == name }.count >= 2,
                "\(name) picked \(recorded.filter { $0 == name }.count) times of \(recorded.count)")
        }
        let ringing = events(h).filter { $0.string("event") == "ringing" && $0.string("alarm") == "pick" }.compactMap {
            $0.string("sound")
        }
        #expect(Array(ringing.prefix(recorded.count)) == recorded, "ringing events name the sound heard: \(ringing)")
    }

    @Test("--max-snoozes 1: the second alarm snooze is refused with a message, exit 1, and the alarm keeps ringing")
    func refusedSnooze() throws {
        let h = try harness("ring = 30s\nsnooze = 2s\n")
        defer { h.shutdown() }
        let added = try h.cli(
            "add", "--in", "2s", "--id", "work", "--label", "Work", "--sound", "low.wav", "--max-snoozes", "1")
        #expect(added.status == 0, "\(added.stderr)")
        _ = try #require(h.recorder.waitForSound(from: h.recorder.count, timeout: 30), "nothing was heard: \(h.log)")
        let first = try h.cli("snooze")
        #expect(first.status == 0, "\(first.stderr)")
        let again = try #require(
            h.recorder.waitForSound(from: h.recorder.count, timeout: 10), "it did not ring again after the snooze")
        _ = again
        #expect(h.wait(10) { h.status()?.string("state") == "ringing" })
        #expect(h.status()?["snoozes"] as? Int == 1)
        #expect(h.status()?["max_snoozes"] as? Int == 1)
        let refused = try h.cli("snooze")
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains(
                "snooze refused: 'Work' has been snoozed once, its limit (max-snoozes 1); the alarm keeps ringing"),
            "\(refused.stderr)")
        // Written straight to the FIFO, as a script or a button might: refused too.
        let fifo = try #require(FileHandle(forWritingAtPath: h.fifoPath))
        fifo.write(Data("snooze\n".utf8))
        try fifo.close()
        let mark = h.recorder.count
        #expect(h.wait(10) { h.recorder.count >= mark + 3 * h.rate })
        let s = h.recorder.samples
        #expect(
            Recording.firstSilence(s, from: mark, length: h.rate / 5, threshold: 50) == nil,
            "the alarm went quiet after a refused snooze")
        #expect(Recording.peak(s[(mark + 2 * h.rate)..<(mark + 3 * h.rate)]) > 5000)
        #expect(h.status()?.string("state") == "ringing")
        #expect(h.log.components(separatedBy: "snooze refused").count >= 3, "both refusals are logged: \(h.log)")
        #expect(try h.cli("stop").status == 0)
        let outcomes = h.history().filter { $0.string("alarm") == "work" }.compactMap { $0.string("outcome") }
        #expect(outcomes == ["snoozed", "stopped"])
    }

    @Test(
        "nobody answers (when_ignored default snooze): it snoozes itself 3 times, rings 4 times, then history and alarm watch say 'ignored'"
    )
    func selfSnooze() throws {
        let h = try harness("ring = 2s\nsnooze = 2s\n")
        defer { h.shutdown() }
        let added = try h.cli("add", "--in", "2s", "--id", "nap", "--label", "Nap", "--sound", "mid.caf")
        #expect(added.status == 0, "\(added.stderr)")
        let start = h.recorder.count
        #expect(
            h.wait(40) { h.history().contains { $0.string("outcome") == "ignored" } },
            "no 'ignored' in history: \(h.log)")
        // The recording lags the sink: wait until it holds the fourth ring's end and a second of
        // quiet after it (a ring still sounding runs to the recording's end).
        #expect(
            waitUntil(timeout: 10, poll: 0.1) {
                let s = Array(h.recorder.samples[start...])
                let r = rings(s, rate: h.rate, gap: 1.0)
                return r.count >= 4 && r[3].upperBound < s.count
            }, "the fourth ring's end never reached the recording: \(h.recordingDiagnosis)")
        let heard = rings(Array(h.recorder.samples[start...]), rate: h.rate, gap: 1.0)
        #expect(heard.count == 4, "rings heard: \(heard.map { Double($0.count) / Double(h.rate) })")
        // Each ring lasts `ring` by alarmd's clock, and sounds no longer. What the sink heard of it
        // may be shorter: on a loaded machine the first frame can come most of a second after the
        // ring began (seen: 0.71 s heard of a 2 s ring, under stress-ng), and history's `started`
        // is that first frame. The ring's own length is timed from its start: the first one's
        // from its scheduled instant (give or take a late wake-up of alarmd on a loaded machine).
        for r in heard {
            let secs = Double(r.count) / Double(h.rate)
            #expect(secs > 0.1 && secs < 2.6, "a ring sounded for \(secs) s")
        }
        #expect(h.wait(10) { h.status()?.string("state") == "idle" }, "\(String(describing: h.status()))")
        let history = h.history().filter { $0.string("alarm") == "nap" }
        func date(_ entry: [String: Any], _ key: String) -> Date? { entry.string(key).flatMap(parseRFC3339) }
        for entry in history {
            let sounded = date(entry, "started").flatMap { s in date(entry, "ended").map { $0.timeIntervalSince(s) } }
            #expect(
                sounded.map { $0 > 0 && $0 < 2.6 } == true,
                "a ring sounded for \(sounded.map { "\($0) s" } ?? "?"): \(entry)")
        }
        if let first = history.first, let scheduled = date(first, "scheduled"), let ended = date(first, "ended") {
            #expect(
                (1.4...3.5).contains(ended.timeIntervalSince(scheduled)),
                "the first ring lasted \(ended.timeIntervalSince(scheduled)) s: \(first)")
        } else {
            Issue.record("the first ring has no scheduled or ended time: \(history)")
        }
        #expect(history.compactMap { $0.string("outcome") } == ["snoozed", "snoozed", "snoozed", "ignored"])
        #expect(history.first?.string("reason") == "nobody answered in 2s: snoozed itself (1 of 3)")
        // alarmd appends the event after it has written history and status.json.
        #expect(h.wait(10) { events(h).contains { $0.string("event") == "ignored" } })
        let ignored = try #require(events(h).last { $0.string("event") == "ignored" }, "no ignored event")
        #expect(ignored.string("alarm") == "nap")
        #expect(ignored.string("label") == "Nap")
        #expect(ignored.string("sound") == "mid.caf")
        #expect(ignored.string("scheduled") == history.last?.string("scheduled"))
        #expect(ignored.string("at") != nil)
        // alarm watch follows until stopped: it shows the events kept, the ignored one among them.
        let watch = try Follower(h, "alarm", ["watch", "--lines", "30"], output: h.root + "/watch.txt")
        defer { watch.stop() }
        #expect(h.wait(10) { watch.text.contains("ignored nap \"Nap\"") }, "\(watch.text)")
    }
}
