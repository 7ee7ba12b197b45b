import Foundation
import Testing

@testable import AlarmCore

/// Which occurrences ring, when, and how often: once alarms, skips, coincidences, preemption,
/// clock jumps, zone changes and DST days.
@Suite struct EngineScheduleTests {
    let utc = zone("UTC")

    @Test func onceAlarmRemovedAfterRingingAndItsSnoozeStillWorks() throws {
        var rig = Rig(
            [try alarm("nap", "07:00", once: true), try alarm("daily", "09:00")], now: at("2026-05-04T06:00:00Z"),
            zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        #expect(rig.last.contains(.removeAlarm(try alarm("nap", "07:00", once: true))))
        #expect(rig.store.map(\.id) == ["daily"])
        #expect(rig.engine.alarms.map(\.id) == ["daily"])
        rig.send(.snooze(60))
        rig.run(until: at("2026-05-04T07:01:00Z"))
        #expect(rig.rings.map(\.alarm) == ["nap", "nap"])
        rig.send(.stop)
        rig.run(until: at("2026-05-05T08:00:00Z"))
        #expect(rig.rings.map(\.alarm) == ["nap", "nap", "daily"])
    }

    @Test func fullyDatedAndAbsoluteAlarmsRingOnceAndAreRemoved() throws {
        let dated = try alarm("trip", "2026-05-04 07:00")
        let timer = instantAlarm("tea", at("2026-05-04T06:20:00Z"))
        var rig = Rig([dated, timer], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T06:20:00Z"))
        #expect(rig.rings.map(\.alarm) == ["tea"])
        #expect(rig.store == [dated])
        rig.send(.stop)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        #expect(rig.rings.map(\.alarm) == ["tea", "trip"])
        #expect(rig.store.isEmpty)
        #expect(rig.timer == at("2026-05-04T07:10:00Z"))  // only the auto-silence is left
        rig.send(.stop)
        #expect(rig.timer == nil)
        #expect(rig.status?.next == nil)
    }

    @Test func skipNextSkipsExactlyOneAndClearsItself() throws {
        var rig = Rig([try alarm("wake", "07:00", skipNext: true)], now: at("2026-05-04T06:00:00Z"), zone: utc)
        #expect(rig.status?.next == .init(id: "wake", at: at("2026-05-05T07:00:00Z")))
        #expect(rig.timer == at("2026-05-04T07:00:00Z"))  // wakes to clear the flag on time
        rig.run(until: at("2026-05-04T07:00:00Z"))
        #expect(rig.rings.isEmpty)
        #expect(rig.store.first?.skipNext == false)
        #expect(rig.history.isEmpty)
        #expect(rig.logged(.notice, containing: "skipped the occurrence at 2026-05-04T07:00:00+00:00"))
        rig.run(until: at("2026-05-05T07:00:00Z"))
        #expect(rig.rings.map(\.scheduled) == [at("2026-05-05T07:00:00Z")])
        rig.send(.stop)
        rig.run(until: at("2026-05-06T07:00:00Z"))
        #expect(rig.rings.count == 2)
    }

    @Test func skipNextSkipsExactlyOneEvenWhenTheLabelWasEditedMeanwhile() throws {
        var rig = Rig([try alarm("wake", "07:00", skipNext: true)], now: at("2026-05-04T06:00:00Z"), zone: utc)
        var relabelled = try alarm("wake", "07:00", skipNext: true)
        relabelled.label = "work"
        rig.store = [relabelled]  // written by the CLI, not yet reloaded by the daemon
        rig.run(until: at("2026-05-04T07:00:00Z"))
        #expect(rig.last.contains(.clearSkipNext(try alarm("wake", "07:00"))))
        #expect(rig.store.first?.skipNext == false)
        #expect(rig.store.first?.label == "work")
        rig.send(.alarmsChanged(rig.store))
        rig.run(until: at("2026-05-05T07:00:00Z"))
        #expect(rig.rings.map(\.scheduled) == [at("2026-05-05T07:00:00Z")])
    }

    @Test func skipNextWhileDownSkipsTheMissedOccurrenceNotTheNextOne() throws {
        let saved = EngineState(
            marks: ["wake": at("2026-05-04T06:00:00Z")], processedThrough: at("2026-05-04T06:00:00Z"))
        let rig = Rig(
            [try alarm("wake", "07:00", skipNext: true)], now: at("2026-05-04T08:00:00Z"), zone: utc, saved: saved)
        #expect(rig.history.isEmpty)
        #expect(rig.store.first?.skipNext == false)
        #expect(rig.status?.next == .init(id: "wake", at: at("2026-05-05T07:00:00Z")))
    }

    @Test func twoAlarmsDueAtTheSameInstantRingOnce() throws {
        var rig = Rig(
            [try alarm("a", "07:00", sound: "a.wav"), try alarm("b", "07:00", sound: "b.wav")],
            now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        #expect(rig.rings.count == 1)
        #expect(rig.rings.first?.alarm == "a")
        rig.send(.stop)
        #expect(rig.history.map(\.alarm) == ["a", "b"])
        #expect(rig.history.map(\.outcome) == [.stopped, .stopped])
        #expect(rig.history[1].reason == "rang together with 'a'")
        rig.run(until: at("2026-05-04T12:00:00Z"))
        #expect(rig.rings.count == 1)
    }

    @Test func aNewOccurrenceWhileRingingSupersedesIt() throws {
        var rig = Rig(
            [try alarm("first", "07:00"), try alarm("second", "07:05", sound: "b.wav")],
            now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:05:00Z"))
        let actions = rig.last
        let stop = try #require(actions.firstIndex(of: .stopAudio))
        let start = try #require(actions.firstIndex { $0.isStartRinging })
        #expect(stop < start)
        #expect(rig.playing?.alarm == "second")
        #expect(rig.history.count == 1)
        #expect(rig.history[0].alarm == "first")
        #expect(rig.history[0].outcome == .silenced)
        #expect(rig.history[0].reason == "superseded by alarm 'second'")
        rig.send(.stop)
        #expect(rig.history.map(\.alarm) == ["first", "second"])
    }

    @Test func aNewOccurrenceWhileSnoozedRingsAndDropsTheSnooze() throws {
        var rig = Rig(
            [try alarm("first", "07:00"), try alarm("second", "07:05")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:01:00Z"))
        rig.send(.snooze(nil))  // until 07:10
        rig.run(until: at("2026-05-04T07:05:00Z"))
        #expect(rig.playing?.alarm == "second")
        #expect(rig.logged(.notice, containing: "snooze of 'first' until 2026-05-04T07:10:00+00:00 dropped"))
        rig.send(.stop)
        rig.run(until: at("2026-05-04T07:30:00Z"))
        #expect(rig.rings.map(\.alarm) == ["first", "second"])
    }

    @Test func backwardClockJumpNeverRingsTwice() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.send(.stop, at: at("2026-05-04T07:01:00Z"))
        rig.jump(to: at("2026-05-04T06:30:00Z"))
        #expect(rig.timer == at("2026-05-05T07:00:00Z"))
        #expect(rig.status?.next == .init(id: "wake", at: at("2026-05-05T07:00:00Z")))
        rig.run(until: at("2026-05-04T23:00:00Z"))
        #expect(rig.rings.count == 1)
        rig.run(until: at("2026-05-05T07:00:00Z"))
        #expect(rig.rings.count == 2)
    }

    @Test func backwardJumpWhileRingingNeitherRestartsNorDropsIt() throws {
        var rig = Rig([try alarm("wake", "07:00", ring: 600)], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:02:00Z"))
        rig.jump(to: at("2026-05-04T06:50:00Z"))
        #expect(rig.playing?.alarm == "wake")
        #expect(rig.rings.count == 1)
        rig.run(until: at("2026-05-04T07:10:00Z"))
        #expect(rig.rings.count == 1)
        #expect(rig.history.map(\.outcome) == [.silenced])
    }

    @Test func backwardJumpBeyondTheLimitIsTakenAsAWrongClock() throws {
        // The clock ran a year ahead, then was corrected: alarms must ring again from now on.
        var rig = Rig([try alarm("wake", "07:00")], now: at("2027-05-04T06:00:00Z"), zone: utc)
        rig.jump(to: at("2026-05-04T06:00:00Z"))
        #expect(rig.logged(.warning, containing: "clock moved back"))
        #expect(rig.timer == at("2026-05-04T07:00:00Z"))
        rig.run(until: at("2026-05-04T07:00:00Z"))
        #expect(rig.rings.count == 1)
    }

    @Test func forwardJumpWithinGraceRingsLateOnce() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:55:00Z"), zone: utc)
        rig.jump(to: at("2026-05-04T07:08:00Z"))
        #expect(rig.rings.count == 1)
        #expect(rig.rings.first?.late == true)
        rig.send(.stop)
        #expect(rig.history.first?.late == true)
        rig.run(until: at("2026-05-04T23:00:00Z"))
        #expect(rig.rings.count == 1)
    }

    @Test func forwardJumpBeyondGraceRecordsMissed() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:55:00Z"), zone: utc)
        rig.jump(to: at("2026-05-04T07:10:01Z"))
        #expect(rig.rings.isEmpty)
        #expect(rig.history.count == 1)
        #expect(rig.history.first?.outcome == .missed)
        #expect(rig.history.first?.started == nil)
        #expect(rig.history.first?.scheduled == at("2026-05-04T07:00:00Z"))
        #expect(rig.timer == at("2026-05-05T07:00:00Z"))
    }

    @Test func jumpOverTwoAlarmsWithinGraceRingsTheLatestForBoth() throws {
        var rig = Rig([try alarm("a", "07:00"), try alarm("b", "07:03")], now: at("2026-05-04T06:59:00Z"), zone: utc)
        rig.jump(to: at("2026-05-04T07:05:00Z"))
        #expect(rig.rings.map(\.alarm) == ["b"])
        rig.send(.stop)
        #expect(Set(rig.history.compactMap(\.alarm)) == ["a", "b"])
    }

    @Test func zoneChangeMovesFloatingNotPinnedOrAbsolute() throws {
        let floating = try alarm("floating", "07:00")
        let pinned = try alarm("pinned", "08:00 Europe/London")
        let absolute = instantAlarm("absolute", at("2026-05-05T09:00:00+01:00"))
        var rig = Rig([floating, pinned, absolute], now: at("2026-05-04T12:00:00Z"), zone: zone("Europe/London"))
        #expect(rig.status?.next == .init(id: "floating", at: at("2026-05-05T07:00:00+01:00")))
        rig.changeZone(zone("America/New_York"))
        #expect(rig.status?.next == .init(id: "pinned", at: at("2026-05-05T08:00:00+01:00")))
        rig.run(until: at("2026-05-06T00:00:00Z"))
        #expect(rig.rings.map(\.alarm) == ["pinned", "absolute", "floating"])
        #expect(
            rig.rings.map(\.scheduled) == [
                at("2026-05-05T08:00:00+01:00"), at("2026-05-05T09:00:00+01:00"), at("2026-05-05T07:00:00-04:00"),
            ])
    }

    @Test func zoneChangeDoesNotRingWhatWasNotDueInTheOldZone() throws {
        // 07:00 London is 06:00 UTC; 07:00 Berlin was 05:00 UTC, before the change: nothing is late.
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T05:00:00Z"), zone: zone("Europe/London"))
        rig.now = at("2026-05-04T05:04:00Z")
        rig.changeZone(zone("Europe/Berlin"))
        #expect(rig.rings.isEmpty)
        #expect(rig.history.isEmpty)
        #expect(rig.timer == at("2026-05-05T07:00:00+02:00"))
    }

    @Test func zoneChangeKeepsAnOccurrenceAlreadyRungFromRingingAgain() throws {
        // Rang at 07:00 Berlin (05:00 UTC); moving to London makes 07:00 local 06:00 UTC: that is a
        // new wall-clock occurrence in the new zone, and it rings (07:00 stays 07:00 local).
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T04:00:00Z"), zone: zone("Europe/Berlin"))
        rig.run(until: at("2026-05-04T05:00:00Z"))
        rig.send(.stop)
        rig.changeZone(zone("Europe/London"))
        #expect(rig.timer == at("2026-05-04T06:00:00Z"))
        // Back to Berlin at 05:30 UTC: the Berlin 07:00 already passed and is not rung again.
        rig.now = at("2026-05-04T05:30:00Z")
        rig.changeZone(zone("Europe/Berlin"))
        rig.run(until: at("2026-05-04T23:00:00Z"))
        #expect(rig.rings.count == 1)
    }

    @Test func dailyAt0230InNewYorkRingsAt0330OnSpringForwardDay() throws {
        var rig = Rig(
            [try alarm("early", "02:30")], now: at("2026-03-07T12:00:00-05:00"), zone: zone("America/New_York"))
        rig.run(until: at("2026-03-09T12:00:00-04:00"))
        #expect(rig.rings.map(\.scheduled) == [at("2026-03-08T03:30:00-04:00"), at("2026-03-09T02:30:00-04:00")])
    }

    @Test func dailyAt0130InNewYorkRingsOnceOnFallBackDay() throws {
        var rig = Rig(
            [try alarm("early", "01:30")], now: at("2026-10-31T12:00:00-04:00"), zone: zone("America/New_York"))
        rig.run(until: at("2026-11-02T12:00:00-05:00"))
        #expect(rig.rings.map(\.scheduled) == [at("2026-11-01T01:30:00-04:00"), at("2026-11-02T01:30:00-05:00")])
    }

    @Test func newAlarmNoticedASecondLateStillRings() throws {
        var rig = Rig([], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.now = at("2026-05-04T07:00:01Z")
        let a = try alarm("soon", "07:00", created: at("2026-05-04T06:59:59Z"))
        rig.change(to: [a])
        #expect(rig.rings.map(\.alarm) == ["soon"])
    }

    @Test func newAlarmForAnHourAlreadyPassedWaitsForTomorrow() throws {
        var rig = Rig([], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.now = at("2026-05-04T07:05:00Z")
        let a = try alarm("late", "07:00")
        rig.change(to: [a])
        #expect(rig.rings.isEmpty)
        #expect(rig.history.isEmpty)
        #expect(rig.timer == at("2026-05-05T07:00:00Z"))
    }

    @Test func alarmRemovedAndAddedBackDoesNotRingAgain() throws {
        let a = try alarm("wake", "07:00")
        var rig = Rig([a], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.send(.stop)
        rig.send(.alarmsChanged([]))
        rig.jump(to: at("2026-05-04T06:58:00Z"))
        rig.send(.alarmsChanged([a]))
        rig.run(until: at("2026-05-04T12:00:00Z"))
        #expect(rig.rings.count == 1)
    }

    @Test func changedTimeTakesEffectAndRingsTheNewTime() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        let moved = try alarm("wake", "06:30")
        rig.change(to: [moved])
        #expect(rig.timer == at("2026-05-04T06:30:00Z"))
        rig.run(until: at("2026-05-04T08:00:00Z"))
        #expect(rig.rings.map(\.scheduled) == [at("2026-05-04T06:30:00Z")])
    }

    @Test func labelChangeWhileDueKeepsTheMark() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.send(.stop)
        var relabelled = try alarm("wake", "07:00")
        relabelled.label = "work"
        rig.send(.alarmsChanged([relabelled]))
        rig.run(until: at("2026-05-04T12:00:00Z"))
        #expect(rig.rings.count == 1)
    }
}

@Suite struct EngineBackwardJumpTests {
    let utc = zone("UTC")

    @Test func backwardJumpWhileSnoozedDoesNotStretchTheSnooze() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.send(.snooze(nil))  // 9 min: until 07:09
        rig.jump(to: at("2026-05-04T06:05:00Z"))
        #expect(rig.timer == at("2026-05-04T06:14:00Z"))
        #expect(rig.status?.snoozedUntil == at("2026-05-04T06:14:00Z"))
        rig.run(until: at("2026-05-04T06:14:00Z"))
        #expect(rig.rings.count == 2)
        #expect(rig.rings[1].scheduled == at("2026-05-04T07:00:00Z"))
    }

    @Test func anExplicitSnoozeKeepsItsLengthAcrossABackwardJump() throws {
        var rig = Rig([try alarm("wake", "07:00")], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.send(.snooze(30 * 60))
        rig.jump(to: at("2026-05-04T06:50:00Z"))
        #expect(rig.status?.snoozedUntil == at("2026-05-04T07:20:00Z"))
    }

    @Test func backwardJumpWhileRingingDoesNotStretchTheRingLength() throws {
        var rig = Rig([try alarm("wake", "07:00", ring: 300)], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:01:00Z"))
        rig.jump(to: at("2026-05-04T05:00:00Z"))
        #expect(rig.timer == at("2026-05-04T05:05:00Z"))
        rig.run(until: at("2026-05-04T05:05:00Z"))
        #expect(rig.history.map(\.outcome) == [.silenced])
        #expect(rig.playing == nil)
    }

    @Test func restartWithTheClockSetBackDoesNotStretchARingingAlarm() throws {
        var rig = Rig([try alarm("wake", "07:00", ring: 300)], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.restart(at: at("2026-05-04T04:00:00Z"))
        #expect(rig.playing?.alarm == "wake")
        #expect(rig.timer == at("2026-05-04T04:05:00Z"))
    }
}
