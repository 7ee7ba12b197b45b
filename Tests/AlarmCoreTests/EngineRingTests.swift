import Foundation
import Testing

@testable import AlarmCore

/// Ringing, snoozing, stopping and auto-silencing one occurrence.
@Suite struct EngineRingTests {
    let utc = zone("UTC")

    @Test func ringsAtItsInstantWithTheAlarmsSettingsOverTheDefaults() throws {
        let settings = EngineSettings(snooze: 300, ring: 120, volume: 60, fadeIn: 15)
        var rig = Rig(
            [try alarm("wake", "07:00", sound: "birds.wav", volume: 90)], now: at("2026-05-04T06:00:00Z"), zone: utc,
            settings: settings)
        #expect(rig.timer == at("2026-05-04T07:00:00Z"))
        #expect(rig.status?.next == .init(id: "wake", at: at("2026-05-04T07:00:00Z")))
        rig.run(until: at("2026-05-04T06:59:59Z"))
        #expect(rig.rings.isEmpty)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        #expect(
            rig.rings == [
                RingRequest(
                    alarm: "wake", label: nil, sound: "birds.wav", volume: 90, fadeIn: 15,
                    scheduled: at("2026-05-04T07:00:00Z"), late: false)
            ])
        #expect(rig.status?.state == .ringing)
        #expect(rig.status?.alarm == "wake")
        #expect(rig.status?.sound == "birds.wav")
        // Auto-silence is the next thing due: 120 s (settings), the alarm leaves ring nil.
        #expect(rig.timer == at("2026-05-04T07:02:00Z"))
    }

    @Test func stopSilencesAndEndsWithAStoppedHistoryEntry() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.now = at("2026-05-04T07:00:00.040Z")
        rig.played()
        #expect(rig.status?.sound == "default")
        rig.now = at("2026-05-04T07:00:30Z")
        let actions = rig.send(.stop)
        #expect(actions.first == .stopAudio)
        #expect(rig.playing == nil)
        #expect(rig.status?.state == .idle)
        #expect(rig.history.count == 1)
        let e = try #require(rig.history.first)
        #expect(e.alarm == "wake")
        #expect(e.outcome == .stopped)
        #expect(e.scheduled == at("2026-05-04T07:00:00Z"))
        #expect(e.started == at("2026-05-04T07:00:00.040Z"))
        #expect(e.ended == at("2026-05-04T07:00:30Z"))
        #expect(e.sound == "default")
        #expect(e.late == false)
        #expect(rig.timer == at("2026-05-05T07:00:00Z"))
    }

    @Test func stopOrSnoozeWhileIdleLogsWhyAndChangesNothing() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        let before = rig.engine.state.ring
        let stop = rig.send(.stop)
        #expect(rig.logged(.warning, containing: "stop ignored: nothing is ringing"))
        let snooze = rig.send(.snooze(nil))
        #expect(rig.logged(.warning, containing: "snooze ignored: nothing is ringing"))
        #expect(rig.engine.state.ring == before)
        #expect(!(stop + snooze).contains { $0.isStopAudio || $0.isStartRinging })
        #expect(rig.history.isEmpty)
    }

    @Test func snoozeThenReRingAfter5Seconds() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.played()
        rig.send(.snooze(5), at: at("2026-05-04T07:00:10Z"))
        #expect(rig.playing == nil)
        #expect(rig.status?.state == .snoozed)
        #expect(rig.status?.snoozedUntil == at("2026-05-04T07:00:15Z"))
        #expect(rig.history.map(\.outcome) == [.snoozed])
        #expect(rig.timer == at("2026-05-04T07:00:15Z"))
        rig.run(until: at("2026-05-04T07:00:14.999Z"))
        #expect(rig.rings.count == 1)
        rig.run(until: at("2026-05-04T07:00:15Z"))
        #expect(rig.rings.count == 2)
        #expect(rig.rings[1].alarm == "wake")
        #expect(rig.rings[1].scheduled == at("2026-05-04T07:00:00Z"))
        #expect(rig.rings[1].late == false)
        #expect(rig.status?.state == .ringing)
        rig.send(.stop)
        #expect(rig.history.map(\.outcome) == [.snoozed, .stopped])
        #expect(rig.history.allSatisfy { $0.scheduled == at("2026-05-04T07:00:00Z") })
    }

    @Test func snoozeLengthComesFromTheAlarmThenTheSettings() throws {
        var rig = Rig(
            [try alarm("a", "07:00", snooze: 120), try alarm("b", "08:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.send(.snooze(nil))
        #expect(rig.status?.snoozedUntil == at("2026-05-04T07:02:00Z"))
        rig.run(until: at("2026-05-04T07:02:00Z"))
        rig.send(.stop)
        rig.run(until: at("2026-05-04T08:00:00Z"))
        rig.send(.snooze(nil))
        #expect(rig.status?.snoozedUntil == at("2026-05-04T08:09:00Z"))
    }

    @Test func snoozeWhileSnoozedRestartsTheSnooze() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.send(.snooze(nil))
        rig.run(until: at("2026-05-04T07:05:00Z"))
        rig.send(.snooze(60))
        #expect(rig.status?.snoozedUntil == at("2026-05-04T07:06:00Z"))
        #expect(rig.history.map(\.outcome) == [.snoozed])
        rig.run(until: at("2026-05-04T07:09:00Z"))
        #expect(rig.rings.map(\.scheduled) == [at("2026-05-04T07:00:00Z"), at("2026-05-04T07:00:00Z")])
        #expect(rig.status?.state == .ringing)
    }

    @Test func stopWhileSnoozedEndsIt() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.send(.snooze(nil))
        rig.send(.stop, at: at("2026-05-04T07:01:00Z"))
        #expect(rig.status?.state == .idle)
        rig.run(until: at("2026-05-04T08:00:00Z"))
        #expect(rig.rings.count == 1)
        // History says how it ended (issue #23): snoozed, then stopped while snoozed, nothing
        // sounding in that last episode.
        #expect(rig.history.map(\.outcome) == [.snoozed, .stopped])
        let last = try #require(rig.history.last)
        #expect(last.alarm == "wake" && last.scheduled == at("2026-05-04T07:00:00Z"))
        #expect(last.reason == "stopped while snoozed")
        #expect(last.started == nil && last.sound == nil && last.ended == at("2026-05-04T07:01:00Z"))
    }

    @Test func aSnoozeSupersededByANewerRingEndsAsSilencedInHistory() throws {
        var rig = Rig(
            [try alarm("wake", "07:00"), try alarm("gym", "07:05")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.send(.snooze(600), at: at("2026-05-04T07:01:00Z"))
        rig.run(until: at("2026-05-04T07:05:00Z"))
        #expect(rig.history.map { "\($0.alarm ?? "-") \($0.outcome)" } == ["wake snoozed", "wake silenced"])
        let dropped = try #require(rig.history.last)
        #expect(dropped.reason == "snooze until 2026-05-04T07:11:00+00:00 dropped: superseded by alarm 'gym'")
        #expect(dropped.started == nil && dropped.ended == at("2026-05-04T07:05:00Z"))
        // Ring now supersedes a snooze as well.
        rig.send(.snooze(600), at: at("2026-05-04T07:06:00Z"))
        rig.send(.ringNow(sound: nil))
        #expect(rig.history.suffix(2).map { "\($0.alarm ?? "-") \($0.outcome)" } == ["gym snoozed", "gym silenced"])
        #expect(rig.history.last?.reason == "snooze until 2026-05-04T07:16:00+00:00 dropped: superseded by ring now")
    }

    @Test func autoSilenceAfterRingLength() throws {
        var rig = Rig([try alarm("wake", "07:00", ring: 300)], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.played()
        rig.run(until: at("2026-05-04T07:04:59Z"))
        #expect(rig.playing != nil)
        rig.run(until: at("2026-05-04T07:05:00Z"))
        #expect(rig.playing == nil)
        #expect(rig.status?.state == .idle)
        #expect(rig.history.map(\.outcome) == [.silenced])
        #expect(rig.history.first?.ended == at("2026-05-04T07:05:00Z"))
        #expect(rig.rings.count == 1)
    }

    @Test func eachSnoozedEpisodeGetsAFullRingLength() throws {
        var rig = Rig([try alarm("wake", "07:00", ring: 60)], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:50Z"))
        rig.send(.snooze(30))
        rig.run(until: at("2026-05-04T07:01:20Z"))
        #expect(rig.status?.state == .ringing)
        #expect(rig.timer == at("2026-05-04T07:02:20Z"))
        rig.run(until: at("2026-05-04T07:02:20Z"))
        #expect(rig.history.map(\.outcome) == [.snoozed, .silenced])
    }

    @Test func ringNowPlaysTheGivenSoundWithTheDefaults() throws {
        var rig = Rig([], now: at("2026-05-04T06:00:00Z"), zone: utc)
        #expect(rig.timer == nil)
        rig.send(.ringNow(sound: "bell.wav"))
        #expect(
            rig.rings == [
                RingRequest(
                    alarm: nil, label: nil, sound: "bell.wav", volume: 100, fadeIn: 0,
                    scheduled: at("2026-05-04T06:00:00Z"), late: false)
            ])
        #expect(rig.status?.state == .ringing)
        #expect(rig.status?.alarm == nil)
        #expect(rig.timer == at("2026-05-04T06:10:00Z"))
        rig.send(.snooze(5))
        rig.run(for: 5)
        #expect(rig.rings.count == 2)
        rig.send(.stop)
        #expect(rig.history.map(\.outcome) == [.snoozed, .stopped])
        #expect(rig.history.allSatisfy { $0.alarm == nil })
    }

    @Test func defaultToneReasonShowsInStatusAndHistory() throws {
        var rig = Rig([try alarm("wake", "07:00", sound: "missing.wav")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        #expect(rig.status?.sound == "missing.wav")
        rig.send(.playbackStarted(sound: nil, reason: "sound 'missing.wav' not found"))
        #expect(rig.status?.sound == "default")
        #expect(rig.status?.reason == "sound 'missing.wav' not found")
        rig.send(.stop)
        #expect(rig.history.first?.sound == "default")
        #expect(rig.history.first?.reason == "sound 'missing.wav' not found")
    }

    @Test func playbackFailureRetriesUntilTheRingLengthAndRecordsFailed() throws {
        var rig = Rig([try alarm("wake", "07:00", ring: 12)], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.send(.playbackFailed(reason: "no sound device"))
        #expect(rig.logged(.error, containing: "no sound device"))
        #expect(rig.timer == at("2026-05-04T07:00:05Z"))
        rig.run(until: at("2026-05-04T07:00:05Z"))
        #expect(rig.rings.count == 2)
        rig.send(.playbackFailed(reason: "no sound device"))
        rig.run(until: at("2026-05-04T07:00:10Z"))
        #expect(rig.rings.count == 3)
        rig.send(.playbackFailed(reason: "no sound device"))
        // The next retry would be after the ring length: no retry, silenced at 07:00:12.
        #expect(rig.timer == at("2026-05-04T07:00:12Z"))
        rig.run(until: at("2026-05-04T07:00:12Z"))
        #expect(rig.history.count == 1)
        #expect(rig.history.first?.outcome == .failed)
        #expect(rig.history.first?.reason == "no sound device")
        #expect(rig.history.first?.started == nil)
    }

    @Test func playbackThatRecoversIsNotFailed() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.send(.playbackFailed(reason: "device busy"))
        rig.run(for: 5)
        rig.played()
        rig.send(.stop)
        #expect(rig.history.map(\.outcome) == [.stopped])
        #expect(rig.history.first?.started == at("2026-05-04T07:00:05Z"))
    }

    @Test func playbackStartedWhileIdleIsStopped() throws {
        var rig = Rig([], now: at("2026-05-04T06:00:00Z"), zone: utc)
        let actions = rig.send(.playbackStarted(sound: nil, reason: nil))
        #expect(actions.contains(.stopAudio))
        #expect(rig.logged(.warning, containing: "playback started while idle"))
    }

    @Test func shutdownWhileRingingStopsTheSoundAndKeepsTheState() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        let actions = rig.send(.shutdown)
        #expect(actions.contains(.stopAudio))
        guard case .ringing = rig.persisted?.ring else {
            Issue.record("persisted state is not ringing: \(String(describing: rig.persisted?.ring))")
            return
        }
    }
}

@Suite struct EngineEdgeTests {
    let utc = zone("UTC")

    @Test func aZeroOrNegativeSnoozeIsRefusedAndTheAlarmKeepsRinging() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        for bad in [0.0, -5, .nan] {
            rig.send(.snooze(bad))
            #expect(rig.status?.state == .ringing)
            #expect(rig.playing != nil)
        }
        #expect(rig.logged(.warning, containing: "the length must be positive"))
        #expect(rig.history.isEmpty)
    }

    @Test func removingARingingAlarmDoesNotSilenceIt() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        let actions = rig.change(to: [])
        #expect(!actions.contains(.stopAudio))
        #expect(rig.status?.state == .ringing)
        rig.send(.snooze(30))
        rig.run(for: 30)
        #expect(rig.rings.count == 2)
        rig.send(.stop)
        #expect(rig.timer == nil)
    }

    @Test func settingsChangedAppliesToRingsThatStartLater() throws {
        var rig = Rig([try alarm("a", "07:00"), try alarm("b", "08:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.send(.settingsChanged(EngineSettings(snooze: 60, ring: 30, volume: 40)))
        #expect(rig.timer == at("2026-05-04T07:10:00Z"))  // the ringing one keeps its 10 min
        rig.send(.stop)
        rig.run(until: at("2026-05-04T08:00:00Z"))
        #expect(rig.rings.last?.volume == 40)
        #expect(rig.timer == at("2026-05-04T08:00:30Z"))
    }

    @Test func anInstantAlarmWithSkipNextIsSkippedAndRemoved() throws {
        var timer = instantAlarm("tea", at("2026-05-04T06:20:00Z"))
        timer.skipNext = true
        var rig = Rig([timer], now: at("2026-05-04T06:00:00Z"), zone: utc)
        #expect(rig.status?.next == nil)
        rig.run(until: at("2026-05-04T06:30:00Z"))
        #expect(rig.rings.isEmpty)
        #expect(rig.store.isEmpty)
        #expect(rig.timer == nil)
    }

    @Test func thirtyMinuteGapInLordHoweShiftsByThirtyMinutes() throws {
        // Lord Howe springs forward from 02:00 to 02:30 on 2026-10-04.
        var rig = Rig(
            [try alarm("early", "02:15")], now: at("2026-10-03T12:00:00+10:30"), zone: zone("Australia/Lord_Howe"))
        rig.run(until: at("2026-10-05T12:00:00+11:00"))
        #expect(rig.rings.map(\.scheduled) == [at("2026-10-04T02:45:00+11:00"), at("2026-10-05T02:15:00+11:00")])
    }

    @Test func pinnedAlarmFollowsItsOwnZonesDSTNotTheSystems() throws {
        // Pinned to New York; the system zone is Tokyo (no DST). Across the US change on
        // 2026-03-08 the UTC instant moves by an hour.
        var rig = Rig(
            [try alarm("call", "09:00 America/New_York")], now: at("2026-03-06T00:00:00Z"), zone: zone("Asia/Tokyo"))
        rig.run(until: at("2026-03-10T00:00:00Z"))
        #expect(
            rig.rings.map(\.scheduled) == [
                at("2026-03-06T14:00:00Z"), at("2026-03-07T14:00:00Z"), at("2026-03-08T13:00:00Z"),
                at("2026-03-09T13:00:00Z"),
            ])
    }

    @Test func historyOfAFloatingAlarmIsWrittenInTheSystemZone() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T04:00:00Z"), zone: zone("Europe/Berlin"))
        rig.run(until: at("2026-05-04T05:00:00Z"))
        rig.send(.stop)
        let json = String(decoding: try JSONEncoder().encode(try #require(rig.history.first)), as: UTF8.self)
        #expect(json.contains("2026-05-04T07:00:00.000+02:00"))
    }
}
