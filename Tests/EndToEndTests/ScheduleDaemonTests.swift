import AlarmTestSupport
import Foundation
import Testing

/// Issue #12 with the real alarmd, playing into a recorded PulseAudio null sink: a paused
/// occurrence is recorded `paused` and nothing is heard; after `alarm resume` it rings again; an
/// occurrence on a day of the holidays file is `skipped` with the holiday's name, and an edit of
/// the file is picked up at once; an alarm ends after its last occurrence.
@Suite("alarmd end to end: pause, resume, holidays, until (PulseAudio null sink)", .serialized)
struct ScheduleDaemonTests {
    static let a440 = DaemonHarness.a440

    func harness(config: String = "ring = 30s\n") throws -> DaemonHarness {
        let h = try DaemonHarness(config: config, withA440: true)
        try h.start()
        return h
    }

    /// RFC 3339 of an instant `seconds` from now, in whole seconds, and that instant.
    func instant(_ seconds: Double) -> (text: String, date: Date) {
        let d = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + seconds).rounded(.up))
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return (f.string(from: d), d)
    }

    func entries(_ h: DaemonHarness, _ id: String) -> [[String: Any]] {
        h.history().filter { $0.string("alarm") == id }
    }

    @Test("a paused occurrence is recorded paused and silent; after resume the alarm rings again")
    func pauseThenResume() throws {
        let h = try harness()
        defer { h.shutdown() }
        // Every 8 s from 6 s ahead, paused before its first occurrence.
        let first = instant(6)
        let added = try h.cli("add", "--at", first.text, "--every", "8s", "--id", "tick", "--sound", Self.a440)
        #expect(added.status == 0, "\(added.stderr)")
        let paused = try h.cli("pause", "tick")
        #expect(paused.stdout == "paused tick until alarm resume\n", "\(paused.stdout) \(paused.stderr)")
        #expect(
            h.wait(10) { (h.status()?["paused"] as? [[String: Any]])?.first?.string("id") == "tick" },
            "status.json shows the pause: \(h.log)")
        let status = try h.cli("status")
        #expect(status.stdout.contains("paused: tick (until alarm resume)"), "\(status.stdout)")
        #expect(
            h.wait(30) { entries(h, "tick").contains { $0.string("outcome") == "paused" } }, "no paused entry: \(h.log)"
        )
        let entry = try #require(entries(h, "tick").first)
        #expect(entry.string("outcome") == "paused")
        #expect(entry.string("reason") == "paused until alarm resume")
        #expect(entry.string("scheduled").flatMap(parseRFC3339) == first.date)
        #expect(entry["started"] is NSNull)
        #expect(
            Recording.firstSound(h.recorder.samples, from: 0, threshold: 1000) == nil, "a paused alarm rang: \(h.log)")
        #expect(!entries(h, "tick").contains { $0.string("outcome") == "missed" })

        let mark = h.recorder.count
        let resumed = try h.cli("resume", "tick")
        #expect(resumed.stdout.hasPrefix("resumed tick: next ring "), "\(resumed.stdout)")
        #expect(h.wait(10) { h.status()?["paused"] == nil }, "status.json drops the pause")
        let onset = try #require(
            h.recorder.waitForSound(from: mark, timeout: 30), "it did not ring after resume: \(h.log)")
        _ = onset
        #expect(
            h.wait(15) { h.status()?.string("state") == "ringing" && h.status()?.string("alarm") == "tick" }, "\(h.log)"
        )
        #expect(try h.cli("stop").status == 0)
        #expect(h.wait(10) { entries(h, "tick").contains { $0.string("outcome") == "stopped" } })
        let outcomes = entries(h, "tick").compactMap { $0.string("outcome") }
        #expect(outcomes.first == "paused" && outcomes.last == "stopped", "\(outcomes)")
        // Each occurrence once: no instant recorded twice.
        let scheduled = entries(h, "tick").compactMap { $0.string("scheduled") }
        #expect(Set(scheduled).count == scheduled.count, "\(scheduled)")
        #expect(try h.cli("remove", "tick").status == 0)
    }

    @Test("an occurrence on a holiday is skipped with its name; an edit of the holidays file is picked up")
    func holidayThenEdit() throws {
        let today = { () -> String in
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = TimeZone(identifier: "Europe/Berlin")
            f.dateFormat = "yyyy-MM-dd"
            return f.string(from: Date())
        }()
        let h = try DaemonHarness(config: "ring = 30s\nholidays = holidays.txt\n")
        defer { h.shutdown() }
        let file = h.root + "/holidays.txt"
        try "# test holidays\n\(today) Test Day\n".write(toFile: file, atomically: true, encoding: .utf8)
        try Recording.writeSineWAV(path: h.soundsDir + "/" + Self.a440, frequency: 440, seconds: 1.5)
        try h.start()
        #expect(h.wait(10) { h.log.contains("holidays: 1 day(s)") }, "\(h.log)")

        let first = instant(5)
        let added = try h.cli(
            "add", "--at", first.text, "--every", "10s", "--id", "work", "--sound", Self.a440, "--skip-holidays")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(
            h.wait(30) { entries(h, "work").contains { $0.string("outcome") == "skipped" } },
            "no skipped entry: \(h.log)")
        let skipped = try #require(entries(h, "work").first)
        #expect(skipped.string("outcome") == "skipped")
        #expect(skipped.string("reason") == "holiday: Test Day")
        #expect(skipped.string("scheduled").flatMap(parseRFC3339) == first.date)
        #expect(
            Recording.firstSound(h.recorder.samples, from: 0, threshold: 1000) == nil, "it rang on a holiday: \(h.log)")

        // A malformed edit is refused with its line; the holidays in force stay.
        try "\(today) Test Day\n2026-02-30 typo\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(h.wait(10) { h.log.contains("line 2: '2026-02-30' is not a date") }, "\(h.log)")
        // Today is no holiday any more: the next occurrence rings.
        let mark = h.recorder.count
        try "# no holidays left\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(h.wait(10) { h.log.contains("holidays: 0 day(s)") }, "\(h.log)")
        _ = try #require(h.recorder.waitForSound(from: mark, timeout: 30), "it did not ring after the edit: \(h.log)")
        // It rings every 10 s (each occurrence takes over from the last): work's ring, in status.json.
        #expect(
            h.wait(15) { h.status()?.string("state") == "ringing" && h.status()?.string("alarm") == "work" }, "\(h.log)"
        )
        #expect(try h.cli("stop").status == 0)
        #expect(h.wait(10) { entries(h, "work").contains { $0.string("outcome") == "stopped" } })
        #expect(try h.cli("remove", "work").status == 0)
    }

    @Test("after its last occurrence an alarm ends, leaves the list, and history says so")
    func untilEnds() throws {
        let h = try harness()
        defer { h.shutdown() }
        let first = instant(4)
        let last = first.date.addingTimeInterval(3)
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        let added = try h.cli(
            "add", "--at", first.text, "--every", "3s", "--until", f.string(from: last), "--id", "short", "--sound",
            Self.a440)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(
            h.wait(30) { entries(h, "short").contains { $0.string("outcome") == "ended" } }, "no ended entry: \(h.log)")
        let ended = try #require(entries(h, "short").first { $0.string("outcome") == "ended" })
        #expect(ended.string("scheduled").flatMap(parseRFC3339) == last)
        #expect(ended.string("reason")?.contains("the alarm ends and was removed") == true)
        #expect(h.wait(10) { !((try? h.cli("list", "--json").stdout.contains("\"short\"")) ?? true) }, "still listed")
        _ = h.recorder.waitForSound(from: 0, timeout: 5)
        #expect(try h.cli("stop").status == 0)
        #expect(h.wait(10) { entries(h, "short").contains { $0.string("outcome") == "stopped" } })
    }
}
