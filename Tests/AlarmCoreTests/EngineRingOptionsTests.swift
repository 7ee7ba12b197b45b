import Foundation
import Testing

@testable import AlarmCore

/// Issue #13, ringing: the snooze limit, what an unanswered ring does (`when_ignored`), the
/// volume ramp's start and the sound selection, in the engine with a fake clock.
@Suite("Engine: ringing options (issue #13)")
struct EngineRingOptionsTests {
    let utc = zone("UTC")
    let seven = at("2026-05-04T07:00:00Z")

    func wake(
        ring: TimeInterval = 600, snooze: TimeInterval = 300, max: SnoozeLimit? = nil, whenIgnored: WhenIgnored? = nil,
        volumeFrom: Int? = nil
    ) throws -> Alarm {
        var a = try alarm("wake", "07:00", snooze: snooze, ring: ring)
        a.label = "Work"
        a.maxSnoozes = max
        a.whenIgnored = whenIgnored
        a.volumeFrom = volumeFrom
        return a
    }

    @Test("after max-snoozes snoozes a snooze is refused, logged, and the alarm keeps ringing")
    func snoozeLimit() throws {
        var rig = Rig([try wake(max: .limited(2))], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: seven)
        rig.played()
        for n in 1...2 {
            rig.send(.snooze(nil))
            #expect(rig.status?.state == .snoozed)
            #expect(rig.status?.snoozes == n)
            rig.run(for: 300)
            #expect(rig.status?.state == .ringing, "snooze \(n) ended: ringing again")
            rig.played()
        }
        let rings = rig.rings.count
        rig.run(for: 10)
        let actions = rig.send(.snooze(nil))
        #expect(!actions.contains { $0.isStopAudio }, "a refused snooze must not stop the sound")
        #expect(rig.playing != nil)
        #expect(rig.status?.state == .ringing)
        #expect(rig.status?.snoozes == 2)
        #expect(rig.status?.maxSnoozes == 2)
        #expect(
            rig.logged(
                .warning,
                containing:
                    "snooze refused: 'Work' has been snoozed 2 times, its limit (max-snoozes 2); the alarm keeps ringing"
            ))
        #expect(rig.rings.count == rings)
        rig.send(.stop)
        #expect(rig.history.map(\.outcome) == [.snoozed, .snoozed, .stopped])
    }

    @Test("max-snoozes 0: no snooze at all; a snooze restarted while snoozed counts towards the limit")
    func zeroAndRestarts() throws {
        var rig = Rig([try wake(max: .limited(0))], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: seven)
        rig.send(.snooze(nil))
        #expect(rig.status?.state == .ringing)

        var two = Rig([try wake(max: .limited(2))], now: at("2026-05-04T06:00:00Z"), zone: utc)
        two.run(until: seven)
        two.send(.snooze(60))
        two.send(.snooze(60))  // restarted while snoozed: the second
        #expect(two.status?.snoozes == 2)
        two.send(.snooze(600))  // a third: refused, the snooze in force stays
        #expect(two.status?.snoozedUntil == seven.addingTimeInterval(60))
        #expect(two.logged(.warning, containing: "snooze refused"))
    }

    @Test("the config's max_snoozes applies when the alarm leaves it unset; the alarm's 'unlimited' overrides it")
    func configLimit() throws {
        var settings = Rig.settings
        settings.maxSnoozes = 1
        var rig = Rig([try wake()], now: at("2026-05-04T06:00:00Z"), zone: utc, settings: settings)
        rig.run(until: seven)
        rig.send(.snooze(nil))
        rig.run(for: 300)
        rig.send(.snooze(nil))
        #expect(rig.status?.state == .ringing)

        var free = Rig([try wake(max: .unlimited)], now: at("2026-05-04T06:00:00Z"), zone: utc, settings: settings)
        free.run(until: seven)
        free.send(.snooze(nil))
        free.run(for: 300)
        free.send(.snooze(nil))
        #expect(free.status?.state == .snoozed)
        #expect(free.status?.maxSnoozes == nil)
    }

    @Test("when-ignored snooze, unlimited snoozes: snoozes itself 3 times, then silenced and recorded 'ignored'")
    func selfSnoozeUnlimited() throws {
        var rig = Rig(
            [try wake(ring: 60, snooze: 120)], now: at("2026-05-04T06:00:00Z"), zone: utc, settings: EngineSettings())
        rig.run(until: seven)
        rig.played()
        rig.run(until: seven.addingTimeInterval(60))
        #expect(rig.status?.state == .snoozed)
        #expect(rig.status?.snoozedUntil == seven.addingTimeInterval(180))
        #expect(rig.history.last?.reason == "nobody answered in 1m: snoozed itself (1 of 3)")
        rig.run(until: seven.addingTimeInterval(3600))
        #expect(rig.history.map(\.outcome) == [.snoozed, .snoozed, .snoozed, .ignored])
        #expect(rig.ringTimes == [0, 180, 360, 540].map { seven.addingTimeInterval($0) })
        #expect(rig.history.last?.ended == seven.addingTimeInterval(600))
        #expect(rig.status?.state == .idle)
        #expect(rig.playing == nil)
        #expect(rig.history.last?.reason?.contains("snoozed itself 3 time(s)") == true)
    }

    @Test("when-ignored snooze counts the user's snoozes against max-snoozes")
    func selfSnoozeWithLimit() throws {
        var rig = Rig(
            [try wake(ring: 60, snooze: 120, max: .limited(2))], now: at("2026-05-04T06:00:00Z"), zone: utc,
            settings: EngineSettings())
        rig.run(until: seven)
        rig.send(.snooze(nil))  // the user: 1 of 2
        rig.run(until: seven.addingTimeInterval(3600))
        // Rings again at 120, snoozes itself at 180 (2 of 2), rings at 300, ignored at 360.
        #expect(rig.history.map(\.outcome) == [.snoozed, .snoozed, .ignored])
        #expect(rig.history[1].reason == "nobody answered in 1m: snoozed itself (2 of 2)")
        #expect(rig.history.last?.ended == seven.addingTimeInterval(360))
        #expect(rig.rings.count == 3)
    }

    @Test("when-ignored silence: silenced at the ring length, as before")
    func silence() throws {
        var rig = Rig(
            [try wake(ring: 60, whenIgnored: .silence)], now: at("2026-05-04T06:00:00Z"), zone: utc,
            settings: EngineSettings())
        rig.run(until: seven.addingTimeInterval(3600))
        #expect(rig.history.map(\.outcome) == [.silenced])
        #expect(rig.rings.count == 1)
    }

    @Test("the ignored ring is an 'ignored' event with alarm, label, scheduled, at and sound")
    func ignoredEvent() throws {
        var r = EventTrackerTests.EventRig(
            [try wake(ring: 60, snooze: 60, max: .limited(1))], now: at("2026-05-04T06:00:00Z"), zone: utc,
            settings: EngineSettings())
        r.started = "chime.wav"
        r.run(until: seven)
        r.send(.playbackStarted(sound: "chime.wav", reason: nil))
        r.run(until: seven.addingTimeInterval(120))
        r.send(.playbackStarted(sound: "chime.wav", reason: nil))
        r.run(until: seven.addingTimeInterval(3600))
        #expect(r.names == ["alarms-changed", "ringing", "snoozed", "ringing", "ignored"])
        let ignored = try #require(r.events.last)
        #expect(ignored.alarm == "wake")
        #expect(ignored.label == "Work")
        #expect(ignored.scheduled == seven)
        #expect(ignored.at == seven.addingTimeInterval(180))
        #expect(ignored.sound == "chime.wav")
        #expect(r.events[2].until == seven.addingTimeInterval(120))
    }

    @Test("volume-from travels with the ring request: the alarm's, else the config's")
    func volumeFrom() throws {
        var settings = Rig.settings
        settings.volumeFrom = 10
        var rig = Rig(
            [try wake(volumeFrom: 25), try alarm("other", "08:00")], now: at("2026-05-04T06:00:00Z"), zone: utc,
            settings: settings)
        rig.run(until: seven)
        #expect(rig.rings.last?.volumeFrom == 25)
        rig.send(.stop)
        rig.run(until: at("2026-05-04T08:00:00Z"))
        #expect(rig.rings.last?.volumeFrom == 10)
    }

    @Test("a ring state saved before issue #13 reads and keeps the old behaviour (silenced)")
    func oldState() throws {
        var rig = Rig([try wake(ring: 60)], now: at("2026-05-04T06:00:00Z"), zone: utc, settings: EngineSettings())
        rig.run(until: seven)
        let data = try JSONEncoder().encode(rig.persisted)
        var object = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
        var ring = try #require(object["ring"] as? [String: Any])
        var ringing = try #require(ring["ringing"] as? [String: Any])
        for key in ["volumeFrom", "snoozes", "selfSnoozes", "maxSnoozes", "whenIgnored"] { ringing[key] = nil }
        ring["ringing"] = ringing
        object["ring"] = ring
        let json = try JSONSerialization.data(withJSONObject: object)
        let old = try JSONDecoder().decode(EngineState.self, from: json)
        guard case .ringing(let r) = old.ring else {
            Issue.record("not ringing")
            return
        }
        #expect(r.whenIgnored == nil)
        rig.persisted = old
        rig.restart(at: seven.addingTimeInterval(1))
        rig.run(until: seven.addingTimeInterval(600))
        #expect(rig.history.map(\.outcome) == [.silenced])
    }

    @Test("sound lists: parsed as given, '*' is any; the order is a permutation decided by the random number")
    func soundSelection() {
        #expect(SoundSelection("a.wav") == .one("a.wav"))
        #expect(SoundSelection("a.wav, b.caf,c.aiff") == .list(["a.wav", "b.caf", "c.aiff"]))
        #expect(SoundSelection("*") == .any)
        #expect(SoundSelection("a.wav,") == .one("a.wav"))
        var firsts = [0, 0, 0]
        for seed in 0..<3000 as Range<UInt64> {
            let order = SoundSelection.order(count: 3, random: seed &* 0x9E37_79B9)
            #expect(order.sorted() == [0, 1, 2])
            #expect(order == SoundSelection.order(count: 3, random: seed &* 0x9E37_79B9))
            firsts[order[0]] += 1
        }
        #expect(firsts.allSatisfy { $0 > 850 && $0 < 1150 }, "first picks: \(firsts)")
    }

    @Test("max-snoozes and when-ignored parse as documented")
    func parsing() throws {
        #expect(try SnoozeLimit.parse("3") == .limited(3))
        #expect(try SnoozeLimit.parse("unlimited") == .unlimited)
        #expect(throws: AlarmError.self) { try SnoozeLimit.parse("three") }
        #expect(try WhenIgnored.parse("Silence") == .silence)
        #expect(throws: AlarmError.self) { try WhenIgnored.parse("stop") }
    }
}
