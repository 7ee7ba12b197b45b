import Foundation
import Testing

@testable import AlarmCore

/// Issue #13: the events `alarm watch` and hooks see, derived from the engine's actions and ring
/// states the way alarmd derives them.
@Suite("EventTracker: events from the engine (issue #13)")
struct EventTrackerTests {
    let utc = zone("UTC")

    /// The engine rig, with the tracker run after every event as alarmd runs it.
    struct EventRig {
        var rig: Rig
        var tracker = EventTracker()
        var events: [AlarmEvent] = []
        /// What the daemon says it started (nil: the request's own sound).
        var started: String?

        init(_ alarms: [Alarm], now: Date, zone: Zone, settings: EngineSettings = Rig.settings) {
            rig = Rig([], now: now, zone: zone, settings: settings)
            rig.store = alarms
            send(.alarmsChanged(alarms))
        }

        mutating func send(_ kind: EngineEvent.Kind) {
            let before = rig.engine.state.ring
            let alarmsBefore = rig.engine.alarms
            let zoneBefore = rig.engine.zone
            let actions = rig.send(kind)
            let engine = rig.engine
            let started = self.started
            events += tracker.events(
                for: kind, actions: actions, before: before, after: engine.state.ring, now: rig.now, zone: rig.zone,
                zoneBefore: zoneBefore,
                label: { id in (engine.alarms.first { $0.id == id } ?? alarmsBefore.first { $0.id == id })?.label },
                sound: { _ in started })
        }

        mutating func run(until t: Date) {
            while let due = rig.timer, due <= t {
                rig.now = max(rig.now, due)
                send(.timerFired)
            }
            rig.now = t
        }

        mutating func at(_ t: Date, _ kind: EngineEvent.Kind) {
            run(until: t)
            send(kind)
        }

        var names: [String] { events.map(\.event) }
    }

    func labelled(_ id: String, _ expr: String, label: String, once: Bool = false) throws -> Alarm {
        var a = try alarm(id, expr, once: once)
        a.label = label
        return a
    }

    @Test(
        "ring, snooze, ring again, stop: ringing, snoozed (with its end), ringing, stopped, each with alarm, label, scheduled, at, sound"
    )
    func fullRing() throws {
        var r = EventRig([try labelled("wake", "07:00", label: "Work day")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        r.started = "birds.wav"
        r.run(until: at("2026-05-04T07:00:00Z"))
        r.at(at("2026-05-04T07:01:00Z"), .snooze(300))
        r.run(until: at("2026-05-04T07:06:00Z"))
        r.at(at("2026-05-04T07:06:30Z"), .stop)
        #expect(r.names == ["alarms-changed", "ringing", "snoozed", "ringing", "stopped"])
        let scheduled = at("2026-05-04T07:00:00Z")
        for e in r.events.dropFirst() {
            #expect(e.alarm == "wake")
            #expect(e.label == "Work day")
            #expect(e.scheduled == scheduled)
            #expect(e.sound == "birds.wav" || e.event != "ringing")
        }
        #expect(r.events[1].at == scheduled)
        #expect(r.events[2].at == at("2026-05-04T07:01:00Z"))
        #expect(r.events[2].until == at("2026-05-04T07:06:00Z"))
        #expect(r.events[3].at == at("2026-05-04T07:06:00Z"))
        #expect(r.events[4].at == at("2026-05-04T07:06:30Z"))
        #expect(r.events[0].count == 1)
    }

    @Test("a playback retry within one ring is not a second ringing; a new episode after a snooze is")
    func retryIsNotANewRing() throws {
        var r = EventRig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        r.run(until: at("2026-05-04T07:00:00Z"))
        r.rig.now = at("2026-05-04T07:00:01Z")
        r.send(.playbackFailed(reason: "no device"))
        r.run(until: at("2026-05-04T07:00:40Z"))  // the engine asks for the sound again
        #expect(r.rig.rings.count >= 2, "the engine retried: \(r.rig.rings.count)")
        #expect(r.names.filter { $0 == "ringing" }.count == 1)
        r.send(.playbackStarted(sound: nil, reason: nil))
        r.at(at("2026-05-04T07:01:00Z"), .snooze(60))
        r.run(until: at("2026-05-04T07:02:00Z"))
        #expect(r.names.filter { $0 == "ringing" }.count == 2)
        // The sound asked for (none: the default tone) when the daemon names none.
        #expect(r.events.last?.sound == "default")
    }

    @Test("stop while snoozed is a stopped event, from its history entry; a snooze restarted is a snoozed event")
    func withoutHistory() throws {
        var r = EventRig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        r.run(until: at("2026-05-04T07:00:00Z"))
        r.at(at("2026-05-04T07:00:10Z"), .snooze(300))
        r.at(at("2026-05-04T07:02:00Z"), .snooze(600))
        r.at(at("2026-05-04T07:03:00Z"), .stop)
        #expect(r.names == ["alarms-changed", "ringing", "snoozed", "snoozed", "stopped"])
        #expect(r.events[3].until == at("2026-05-04T07:12:00Z"))
        #expect(r.events[4].reason == "stopped while snoozed")
        #expect(r.events[4].alarm == "wake")
        // Nothing rings or waits: stop and snooze change nothing and say nothing.
        r.at(at("2026-05-04T07:04:00Z"), .stop)
        r.at(at("2026-05-04T07:04:00Z"), .snooze(nil))
        #expect(r.events.count == 5)
    }

    @Test("a snoozed ring superseded by a newer one: silenced, with the reason, before the newer one's ringing")
    func supersededWhileSnoozed() throws {
        var r = EventRig(
            [try labelled("wake", "07:00", label: "Work day"), try alarm("gym", "07:05")],
            now: at("2026-05-04T06:00:00Z"), zone: utc)
        r.run(until: at("2026-05-04T07:00:00Z"))
        r.at(at("2026-05-04T07:01:00Z"), .snooze(600))
        r.run(until: at("2026-05-04T07:05:00Z"))
        #expect(r.names == ["alarms-changed", "ringing", "snoozed", "silenced", "ringing"])
        let dropped = r.events[3]
        #expect(dropped.alarm == "wake")
        #expect(dropped.label == "Work day")
        #expect(dropped.scheduled == at("2026-05-04T07:00:00Z"))
        #expect(dropped.at == at("2026-05-04T07:05:00Z"))
        #expect(dropped.reason == "snooze until 2026-05-04T07:11:00+00:00 dropped: superseded by alarm 'gym'")
        #expect(r.events[4].alarm == "gym")
        // Ring now supersedes a snooze too; a snooze that ends and rings again is no such thing.
        r.at(at("2026-05-04T07:06:00Z"), .snooze(60))
        r.run(until: at("2026-05-04T07:07:00Z"))
        #expect(r.names.suffix(2) == ["snoozed", "ringing"], "\(r.names)")
        r.at(at("2026-05-04T07:07:30Z"), .snooze(60))
        r.at(at("2026-05-04T07:08:00Z"), .ringNow(sound: nil))
        #expect(r.names.suffix(3) == ["snoozed", "silenced", "ringing"], "\(r.names)")
        #expect(r.events.suffix(2).first?.reason?.hasSuffix("superseded by ring now") == true)
    }

    @Test("auto-silence and a missed once-alarm: silenced, then missed with the label of an alarm already gone")
    func silencedAndMissed() throws {
        let settings = EngineSettings(snooze: 300, ring: 60, volume: 100, fadeIn: 0, grace: 120, whenIgnored: .silence)
        var r = EventRig(
            [try alarm("a", "07:00"), try labelled("tea", "2026-05-04 08:00", label: "Tea", once: true)],
            now: at("2026-05-04T06:00:00Z"), zone: utc, settings: settings)
        r.run(until: at("2026-05-04T07:01:00Z"))
        #expect(r.names == ["alarms-changed", "ringing", "silenced"])
        // The clock jumps past tea's instant by more than the grace window.
        r.rig.now = at("2026-05-04T09:00:00Z")
        r.send(.clockChanged)
        #expect(r.names.suffix(2) == ["clock-changed", "missed"])
        let missed = try #require(r.events.last)
        #expect(missed.alarm == "tea")
        #expect(missed.label == "Tea", "the alarm is removed by this very event; its label comes from the list before")
        #expect(missed.scheduled == at("2026-05-04T08:00:00Z"))
        #expect(missed.at == at("2026-05-04T09:00:00Z"))
        #expect(missed.sound == nil)
        #expect(missed.reason?.contains("grace") == true)
        #expect(missed.late == true)
    }

    @Test("zone, clock and list changes come first, with the zones before and after")
    func systemEvents() throws {
        var r = EventRig([try alarm("a", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        r.rig.zone = zone("Europe/Berlin")
        r.send(.zoneChanged)
        #expect(r.events.last?.event == "zone-changed")
        #expect(r.events.last?.zone == "Europe/Berlin")
        #expect(r.events.last?.from == "UTC")
        r.send(.alarmsChanged([]))
        #expect(r.events.last?.event == "alarms-changed")
        #expect(r.events.last?.count == 0)
        r.send(.clockChanged)
        #expect(r.events.last?.event == "clock-changed")
        #expect(r.events.last?.alarm == nil)
    }

    @Test("every outcome becomes the event of its name: a new outcome needs nothing here")
    func outcomeNames() throws {
        for outcome in [RingOutcome.stopped, .snoozed, .silenced, .missed, .failed] {
            var tracker = EventTracker()
            let entry = HistoryEntry(
                alarm: "x", scheduled: at("2026-05-04T07:00:00Z"), started: nil, ended: nil, outcome: outcome,
                sound: nil,
                reason: nil, late: false, zone: utc)
            let events = tracker.events(
                for: .timerFired, actions: [.recordHistory(entry)], before: .idle, after: .idle,
                now: at("2026-05-04T07:00:01Z"),
                zone: utc, label: { _ in "L" })
            #expect(events.map(\.event) == [outcome.rawValue])
            #expect(AlarmEvent.Name.all.contains(outcome.rawValue))
        }
    }

    @Test("JSON: the seven keys always (null where they do not apply), the others only when set; it reads back")
    func json() throws {
        let e = AlarmEvent(
            "snoozed", at: at("2026-05-04T07:01:00.250+02:00"), alarm: "wake", label: "Work \"day\"\n",
            scheduled: at("2026-05-04T07:00:00+02:00"), sound: "birds.wav", until: at("2026-05-04T07:10:00+02:00"),
            timeZone: Zone(secondsFromGMT: 7200), seq: 42)
        let line = String(decoding: try e.jsonLine(), as: UTF8.self)
        #expect(!line.contains("\n"))
        #expect(line.hasPrefix("{\"alarm\":\"wake\",\"at\":\"2026-05-04T07:01:00.250+02:00\",\"event\":\"snoozed\","))
        #expect(line.contains("\"seq\":42"))
        #expect(line.contains("\"until\":\"2026-05-04T07:10:00.000+02:00\""))
        #expect(!line.contains("\"late\"") && !line.contains("\"reason\"") && !line.contains("\"zone\""))
        let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["seq", "event", "at", "alarm", "label", "scheduled", "sound", "until"])
        let back = try JSONDecoder().decode(AlarmEvent.self, from: Data(line.utf8))
        #expect(back.event == "snoozed" && back.seq == 42 && back.label == e.label && back.until == e.until)
        #expect(back.at == e.at)

        let clock = AlarmEvent("clock-changed", at: at("2026-05-04T07:00:00Z"), timeZone: utc, seq: 1)
        let o = try #require(JSONSerialization.jsonObject(with: Data(try clock.jsonLine())) as? [String: Any])
        for key in ["alarm", "label", "scheduled", "sound"] { #expect(o[key] is NSNull, "\(key) is null") }
    }

    @Test(
        "text: one line, the instant and the name first, the reason after a colon; newlines in a label cannot break it")
    func text() throws {
        let ring = AlarmEvent(
            "ringing", at: at("2026-05-04T07:00:00.004Z"), alarm: "wake", label: "Work\nday",
            scheduled: at("2026-05-04T07:00:00Z"),
            sound: "birds.wav", late: true, timeZone: utc)
        #expect(
            ring.text
                == "2026-05-04T07:00:00.004+00:00 ringing wake \"Work day\" scheduled 2026-05-04T07:00:00.000+00:00 sound birds.wav late"
        )
        let missed = AlarmEvent(
            "missed", at: at("2026-05-04T09:00:00Z"), alarm: "tea", reason: "passed 1 h ago", timeZone: utc)
        #expect(missed.text == "2026-05-04T09:00:00.000+00:00 missed tea: passed 1 h ago")
        let zoneEvent = AlarmEvent(
            "zone-changed", at: at("2026-05-04T09:00:00Z"), zone: "Asia/Kolkata", from: "UTC", timeZone: utc)
        #expect(zoneEvent.text.hasSuffix("zone-changed Asia/Kolkata from UTC"))
        let manual = AlarmEvent(
            "ringing", at: at("2026-05-04T09:00:00Z"), scheduled: at("2026-05-04T09:00:00Z"), sound: "default",
            timeZone: utc)
        #expect(manual.text.contains(" ringing ring scheduled "))
    }
}
