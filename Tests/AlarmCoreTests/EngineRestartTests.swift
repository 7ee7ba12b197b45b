import Foundation
import Testing

@testable import AlarmCore

/// Restarts and crashes: the persisted state brings back snoozes and ringing alarms, catches up
/// what was missed while down, and never rings an occurrence twice.
@Suite struct EngineRestartTests {
    let utc = zone("UTC")

    /// The state survives its JSON form (what the daemon writes to state.json).
    func roundTrip(_ s: EngineState?) throws -> EngineState? {
        guard let s else { return nil }
        return try JSONDecoder().decode(EngineState.self, from: JSONEncoder().encode(s))
    }

    /// `wake` (daily 07:00) rang at 07:00 on 2026-05-04 and was snoozed for 5 minutes at once.
    func snoozedAtSeven() throws -> Rig {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.send(.snooze(300))
        return rig
    }

    @Test func restartWhileSnoozedReRingsWhenTheSnoozeEnds() throws {
        var rig = try snoozedAtSeven()
        rig.persisted = try roundTrip(rig.persisted)
        rig.restart(at: at("2026-05-04T07:02:00Z"))
        #expect(rig.status?.state == .snoozed)
        #expect(rig.timer == at("2026-05-04T07:05:00Z"))
        #expect(rig.rings.count == 1)
        rig.run(until: at("2026-05-04T07:05:00Z"))
        #expect(rig.rings.count == 2)
        #expect(rig.rings.last?.late == false)
        #expect(rig.rings.last?.scheduled == at("2026-05-04T07:00:00Z"))
    }

    @Test func restartAfterTheSnoozeEndedWithinGraceRingsNowLate() throws {
        var rig = try snoozedAtSeven()
        rig.persisted = try roundTrip(rig.persisted)
        rig.restart(at: at("2026-05-04T07:09:00Z"))
        #expect(rig.rings.count == 2)
        #expect(rig.rings.last?.late == true)
        #expect(rig.status?.state == .ringing)
    }

    @Test func restartLongAfterTheSnoozeEndedRecordsMissed() throws {
        var rig = try snoozedAtSeven()
        rig.restart(at: at("2026-05-04T08:00:00Z"))
        #expect(rig.rings.count == 1)
        #expect(rig.history.map(\.outcome) == [.snoozed, .missed])
        #expect(rig.status?.state == .idle)
    }

    /// History says how every ring ended (issue #23), across a crash too: a snooze brought back
    /// from the saved state and then stopped, or superseded by a newer alarm, gets its last entry.
    @Test func restartWhileSnoozedThenStopEndsTheOccurrenceWithStopped() throws {
        var rig = try snoozedAtSeven()
        rig.persisted = try roundTrip(rig.persisted)
        rig.restart(at: at("2026-05-04T07:02:00Z"))
        #expect(rig.status?.state == .snoozed)
        rig.send(.stop, at: at("2026-05-04T07:03:00Z"))
        #expect(rig.status?.state == .idle)
        #expect(rig.history.map(\.outcome) == [.snoozed, .stopped])
        #expect(rig.history.last?.reason == "stopped while snoozed")
        #expect(rig.history.last?.scheduled == at("2026-05-04T07:00:00Z"))
        rig.run(until: at("2026-05-04T08:00:00Z"))
        #expect(rig.rings.count == 1)
    }

    @Test func restartWhileSnoozedThenANewerAlarmEndsTheOccurrenceWithSilenced() throws {
        var rig = Rig(
            [try alarm("wake", "07:00"), try alarm("gym", "07:05")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.send(.snooze(600))
        rig.persisted = try roundTrip(rig.persisted)
        rig.restart(at: at("2026-05-04T07:02:00Z"))
        rig.run(until: at("2026-05-04T07:05:00Z"))
        #expect(rig.history.map { "\($0.alarm ?? "-") \($0.outcome)" } == ["wake snoozed", "wake silenced"])
        #expect(rig.history.last?.reason == "snooze until 2026-05-04T07:10:00+00:00 dropped: superseded by alarm 'gym'")
        #expect(rig.status?.state == .ringing)
    }

    @Test func killedWhileRingingRingsAgainUntilTheRingLengthPasses() throws {
        var rig = Rig([try alarm("wake", "07:00", ring: 600)], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.played()
        rig.persisted = try roundTrip(rig.persisted)
        rig.restart(at: at("2026-05-04T07:03:00Z"))
        #expect(rig.rings.count == 2)
        #expect(rig.playing?.alarm == "wake")
        #expect(rig.timer == at("2026-05-04T07:10:00Z"))  // the original deadline
        rig.run(until: at("2026-05-04T07:10:00Z"))
        #expect(rig.history.map(\.outcome) == [.silenced])
    }

    @Test func killedWhileRingingAndDownPastTheRingLengthIsSilenced() throws {
        var rig = Rig([try alarm("wake", "07:00", ring: 600)], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.restart(at: at("2026-05-04T07:30:00Z"))
        #expect(rig.rings.count == 1)
        #expect(rig.history.map(\.outcome) == [.silenced])
        #expect(rig.history.first?.reason == "ring length passed while the daemon was down")
    }

    @Test func restartAfterRingingNeverRingsTheSameOccurrenceAgain() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.send(.stop)
        rig.persisted = try roundTrip(rig.persisted)
        rig.restart(at: at("2026-05-04T07:01:00Z"))
        // Even with the clock set back before the occurrence:
        rig.restart(at: at("2026-05-04T06:59:00Z"))
        rig.run(until: at("2026-05-04T12:00:00Z"))
        #expect(rig.rings.count == 1)
    }

    @Test func missedWhileDownWithinGraceRingsLate() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.persisted = try roundTrip(rig.persisted)
        rig.restart(at: at("2026-05-04T07:09:59Z"))
        #expect(rig.rings.map(\.scheduled) == [at("2026-05-04T07:00:00Z")])
        #expect(rig.rings.first?.late == true)
        rig.send(.stop)
        #expect(rig.history.first?.late == true)
        #expect(rig.history.first?.outcome == .stopped)
    }

    @Test func missedWhileDownBeyondGraceIsRecordedAsMissedOncePerOccurrence() throws {
        var rig = Rig(
            [try alarm("wake", "07:00"), try alarm("evening", "19:00"), try alarm("once", "08:00", once: true)],
            now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.restart(at: at("2026-05-05T06:00:00Z"))
        #expect(rig.rings.isEmpty)
        #expect(rig.history.map(\.alarm) == ["wake", "evening", "once"])
        #expect(rig.history.allSatisfy { $0.outcome == .missed && $0.late && $0.started == nil })
        #expect(
            rig.history.map(\.scheduled) == [
                at("2026-05-04T07:00:00Z"), at("2026-05-04T19:00:00Z"), at("2026-05-04T08:00:00Z"),
            ])
        #expect(rig.store.map(\.id) == ["wake", "evening"])
        rig.restart(at: at("2026-05-05T06:01:00Z"))
        #expect(rig.history.count == 3)
    }

    @Test func everyOccurrenceMissedDuringALongDowntimeIsListed() throws {
        var rig = Rig(
            [try alarm("wake", "07:00"), try alarm("once", "08:00", once: true)], now: at("2026-05-04T06:00:00Z"),
            zone: utc)
        rig.restart(at: at("2026-05-14T12:00:00Z"))
        #expect(rig.rings.isEmpty)
        #expect(rig.history.map(\.alarm) == Array(repeating: "wake", count: 11) + ["once"])
        #expect(rig.history.allSatisfy { $0.outcome == .missed })
        #expect(rig.history.first?.scheduled == at("2026-05-04T07:00:00Z"))
        #expect(rig.history.dropLast().last?.scheduled == at("2026-05-14T07:00:00Z"))
    }

    /// A Pi without a real-time clock boots in 1970 with `a` and no saved state, then NTP's first
    /// sync sets 2026-05-04 06:00: what passed meanwhile is recorded missed (`listed` checks the
    /// list), nothing stale rings, and 07:00 then rings once.
    func bootIn1970ThenSync(_ a: Alarm, listed: ([HistoryEntry]) -> Void) {
        var rig = Rig([a], now: at("1970-01-01T00:00:10Z"), zone: utc)
        rig.jump(to: at("2026-05-04T06:00:00Z"))
        listed(rig.history)
        #expect(rig.history.allSatisfy { $0.outcome == .missed })
        #expect(rig.rings.isEmpty)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        #expect(rig.rings.count == 1)
    }

    @Test func aClockThatStartsIn1970ThenSyncsOwesWhatCameAfterTheAlarmWasCreated() throws {
        // Switched off since the evening of 05-01; the alarm was made on 05-01 at 20:00: its
        // occurrences since then passed unrung and are listed.
        bootIn1970ThenSync(try alarm("wake", "07:00", created: at("2026-05-01T20:00:00Z"))) { history in
            #expect(history.map(\.scheduled) == [at("2026-05-02T07:00:00Z"), at("2026-05-03T07:00:00Z")])
        }
    }

    @Test func aClockThatStartsIn1970WithAnAlarmFromAnOldStoreListsABoundedNumber() throws {
        // An alarm without `created` (a store from before it existed) counts from the first
        // start: from 1970 here. The catch-up stays bounded: a list, one entry for the rest.
        bootIn1970ThenSync(try alarm("wake", "07:00")) { history in
            #expect(history.count == Engine.missedListLimit + 1)
            #expect(history.last?.reason?.contains("not listed one by one") == true)
        }
    }

    @Test func aClockGlitchTo1970AndBackNeverRingsTwiceNorCatchesUp() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.send(.stop, at: at("2026-05-04T07:01:00Z"))
        rig.jump(to: at("1970-01-01T00:00:05Z"))
        #expect(rig.logged(.warning, containing: "clock moved back"))
        rig.persisted = try roundTrip(rig.persisted)
        rig.restart(at: at("1970-01-01T00:00:30Z"))  // a reboot while the clock is wrong
        rig.jump(to: at("2026-05-04T07:03:00Z"))  // NTP
        #expect(rig.logged(.notice, containing: "occurrences up to then were handled already"))
        #expect(rig.rings.count == 1)
        #expect(rig.history.map(\.outcome) == [.stopped])
        rig.run(until: at("2026-05-05T07:00:00Z"))
        #expect(rig.rings.count == 2)
    }

    @Test func longDowntimeListsManyMissedThenOneEntryForTheRestAndSkipsAhead() throws {
        var rig = Rig([try alarm("often", "*:*:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.restart(at: at("2026-05-05T06:00:00Z"))
        #expect(rig.history.count == Engine.missedListLimit + 1)
        #expect(rig.history.last?.scheduled == at("2026-05-04T07:41:00Z"))
        #expect(rig.logged(.warning, containing: "not listed one by one"))
        // Within grace: the last ten minutes ring, as one.
        #expect(rig.rings.count == 1)
        #expect(rig.rings.first?.scheduled == at("2026-05-05T06:00:00Z"))
    }

    @Test func alarmAddedWhileDownIsCaughtUpFromTheLastRun() throws {
        var rig = Rig([], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.store = [try alarm("wake", "07:00")]
        rig.restart(at: at("2026-05-04T07:05:00Z"))
        #expect(rig.rings.map(\.alarm) == ["wake"])
    }

    @Test func firstStartWithoutStateDoesNotRingThePast() throws {
        let rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T07:05:00Z"), zone: utc)
        #expect(rig.rings.isEmpty)
        #expect(rig.history.isEmpty)
        #expect(rig.logged(.notice, containing: "no saved state"))
    }

    @Test func stateIsPersistedBeforeTheSoundStarts() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        let persist = try #require(rig.last.firstIndex { if case .persistState = $0 { true } else { false } })
        let start = try #require(rig.last.firstIndex { $0.isStartRinging })
        #expect(persist < start)
    }
}

/// The JSON forms other programs read: exact keys.
@Suite struct EngineJSONTests {
    func object(_ value: some Encodable) throws -> [String: Any] {
        let data = try JSONEncoder().encode(value)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func historyEntryHasExactlyTheDocumentedKeys() throws {
        let berlin = zone("Europe/Berlin")
        let e = HistoryEntry(
            alarm: "wake", scheduled: at("2026-05-04T07:00:00+02:00"), started: at("2026-05-04T07:00:00.012+02:00"),
            ended: at("2026-05-04T07:03:00.5+02:00"), outcome: .stopped, sound: "default",
            reason: "sound 'x.wav' not found",
            late: false, zone: berlin)
        let o = try object(e)
        #expect(Set(o.keys) == ["alarm", "scheduled", "started", "ended", "outcome", "sound", "reason", "late"])
        #expect(o["scheduled"] as? String == "2026-05-04T07:00:00.000+02:00")
        #expect(o["started"] as? String == "2026-05-04T07:00:00.012+02:00")
        #expect(o["ended"] as? String == "2026-05-04T07:03:00.500+02:00")
        #expect(o["outcome"] as? String == "stopped")
        #expect(o["late"] as? Bool == false)
        let back = try JSONDecoder().decode(HistoryEntry.self, from: JSONEncoder().encode(e))
        #expect(back.scheduled == e.scheduled && back.started == e.started && back.ended == e.ended)
        #expect(back.outcome == .stopped && back.reason == e.reason && back.sound == "default")
        #expect(back.zone.secondsFromGMT(for: back.scheduled) == 7200)
    }

    @Test func missedEntryHasNullStartedAndEnded() throws {
        let e = HistoryEntry(
            alarm: "wake", scheduled: at("2026-05-04T07:00:00Z"), started: nil, ended: nil, outcome: .missed,
            sound: nil, reason: "x", late: true, zone: zone("UTC"))
        let o = try object(e)
        #expect(o["started"] is NSNull)
        #expect(o["ended"] is NSNull)
        #expect(o["sound"] is NSNull)
        let back = try JSONDecoder().decode(HistoryEntry.self, from: JSONEncoder().encode(e))
        #expect(back.started == nil && back.outcome == .missed && back.late)
    }

    @Test func statusHasExactlyTheDocumentedKeys() throws {
        let s = EngineStatus(
            state: .snoozed, alarm: "wake", sound: "birds.wav", reason: nil, snoozedUntil: at("2026-05-04T07:09:00Z"),
            next: .init(id: "wake", at: at("2026-05-05T07:00:00Z")), zone: zone("Europe/London"))
        let o = try object(s)
        // Issue #13: while ringing or snoozed, the snoozes so far, the limit (null: unlimited), the label.
        #expect(
            Set(o.keys) == [
                "state", "alarm", "sound", "reason", "snoozed_until", "next", "warnings", "snoozes", "max_snoozes",
                "label",
            ])
        #expect(o["snoozes"] as? Int == 0)
        #expect(o["max_snoozes"] is NSNull)
        #expect(o["warnings"] as? [String] == [], "issue #11: an empty array when the pre-flight found nothing")
        #expect(o["state"] as? String == "snoozed")
        #expect(o["snoozed_until"] as? String == "2026-05-04T08:09:00+01:00")
        #expect(o["reason"] is NSNull)
        let next = try #require(o["next"] as? [String: Any])
        #expect(Set(next.keys) == ["id", "at"])
        // Issue #12: `paused` only while an alarm is paused.
        var p = s
        p.paused = [.init(id: "wake", until: at("2026-05-10T00:00:00Z")), .init(id: "gym", until: nil)]
        let po = try object(p)
        #expect(
            Set(po.keys) == [
                "state", "alarm", "sound", "reason", "snoozed_until", "next", "warnings", "paused", "snoozes",
                "max_snoozes", "label",
            ])
        let list = try #require(po["paused"] as? [[String: Any]])
        #expect(list.map { $0["id"] as? String } == ["wake", "gym"])
        #expect(list[0]["until"] as? String == "2026-05-10T01:00:00+01:00")
        #expect(list[1]["until"] is NSNull)
        #expect(try JSONDecoder().decode(EngineStatus.self, from: JSONEncoder().encode(p)).paused == p.paused)
        #expect(next["at"] as? String == "2026-05-05T08:00:00+01:00")
        let back = try JSONDecoder().decode(EngineStatus.self, from: JSONEncoder().encode(s))
        #expect(back.state == .snoozed && back.next?.at == s.next?.at && back.snoozedUntil == s.snoozedUntil)
    }

    @Test func idleStatusHasNulls() throws {
        let o = try object(EngineStatus(state: .idle, zone: zone("UTC")))
        #expect(o["state"] as? String == "idle")
        for k in ["alarm", "sound", "reason", "snoozed_until", "next"] { #expect(o[k] is NSNull, "\(k)") }
    }

    @Test func engineStateRoundTripsExactly() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00.123456Z"), zone: zone("UTC"))
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.now = at("2026-05-04T07:00:00.0004Z")
        rig.played()
        rig.send(.snooze(5))
        let s = try #require(rig.persisted)
        let back = try JSONDecoder().decode(EngineState.self, from: JSONEncoder().encode(s))
        #expect(back == s)
    }
}
