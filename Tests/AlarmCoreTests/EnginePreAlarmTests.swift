import Foundation
import Testing

@testable import AlarmCore

/// Issue #43: a `pre-alarm` at each lead before each ring that will happen, exactly once per
/// alarm, ring instant and lead; none for a skipped, paused or holiday occurrence; late when
/// the engine starts inside the lead; never twice across a restart.
@Suite struct EnginePreAlarmTests {
    static let t0 = at("2026-11-22T12:00:00Z")  // a Sunday
    static let utc = zone("UTC")

    static func wake(
        _ leads: String = "30m,10m", expr: String = "07:00", created: Date = t0, label: String? = "Wake"
    ) throws -> Alarm {
        var a = try alarm("wake", expr, created: created)
        a.label = label
        a.preAlarm = try PreAlarmLeads.parse(leads)
        return a
    }

    /// "scheduled lead late" of each pre-alarm, in UTC.
    func written(_ rig: Rig) -> [String] {
        rig.preAlarms.map {
            "\(RFC3339.format($0.scheduled, in: .utc)) \(Durations.format($0.lead))" + ($0.late ? " late" : "")
        }
    }

    /// Runs to `time`, stopping every ring on the way (a minute after it starts).
    func runStopping(_ rig: inout Rig, until time: Date) {
        while rig.now < time {
            rig.run(until: min(time, rig.timer ?? time))
            if rig.playing != nil {
                rig.run(for: 60)
                if rig.playing != nil { rig.send(.stop) }
            }
            if rig.timer == nil { rig.run(until: time) }
        }
    }

    // MARK: leads

    @Test func leadsParseCheckAndPrintBack() throws {
        #expect(try PreAlarmLeads.parse("10m,30m").seconds == [1800, 600], "longest first")
        #expect(try PreAlarmLeads.parse(" 1h30m , 45s ").description == "1h30m,45s")
        #expect(try PreAlarmLeads.parse(PreAlarmLeads.parse("30m,10m,5s").description).seconds == [1800, 600, 5])
        for bad in ["", "10m,", "0s", "-5m", "10m,10m", "30m,0.5h", "25h", "2d", "5", "2.5s"] {
            #expect(throws: AlarmError.self, "'\(bad)' is refused") { try PreAlarmLeads.parse(bad) }
        }
        #expect(throws: AlarmError.invalid("pre-alarm: the lead 30m is given twice")) {
            try PreAlarmLeads.parse("30m,0.5h")
        }
        #expect(throws: AlarmError.invalid("pre-alarm: a lead must be at most 1d, found 1d1h")) {
            try PreAlarmLeads.parse("25h")
        }
    }

    @Test func anAlarmsLeadsRoundTripThroughTheStoreFormat() throws {
        let a = try Self.wake("30m,10m")
        let bytes = try AlarmListWriter.encode([a])
        let back = try AlarmListReader.decode(bytes)
        #expect(back.first?.preAlarm == a.preAlarm)
        #expect(String(decoding: bytes, as: UTF8.self).contains("\"pre_alarm\" : \"30m,10m\""))
        let viaCodable = try JSONDecoder().decode([Alarm].self, from: Data(bytes))
        #expect(viaCodable.first?.preAlarm == a.preAlarm)
        // Byte for byte what JSONEncoder writes (the store's promise).
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        #expect(String(decoding: try e.encode([a]), as: UTF8.self) == String(decoding: bytes, as: UTF8.self))
    }

    // MARK: exactly once

    @Test func eachLeadIsWrittenOnceAtItsInstantBeforeEachRing() throws {
        var rig = Rig([try Self.wake()], now: Self.t0, zone: Self.utc)
        #expect(rig.timer == at("2026-11-23T06:30:00Z"), "the engine wakes for the first pre-alarm")
        runStopping(&rig, until: at("2026-11-24T12:00:00Z"))
        #expect(
            written(rig) == [
                "2026-11-23T07:00:00+00:00 30m", "2026-11-23T07:00:00+00:00 10m",
                "2026-11-24T07:00:00+00:00 30m", "2026-11-24T07:00:00+00:00 10m",
            ])
        #expect(
            rig.preAlarmTimes == [
                at("2026-11-23T06:30:00Z"), at("2026-11-23T06:50:00Z"), at("2026-11-24T06:30:00Z"),
                at("2026-11-24T06:50:00Z"),
            ])
        #expect(rig.preAlarms.allSatisfy { $0.alarm == "wake" && $0.label == "Wake" && $0.zoneIdentifier == "UTC" })
        #expect(rig.rings.map(\.scheduled) == [at("2026-11-23T07:00:00Z"), at("2026-11-24T07:00:00Z")])
        // Marks of passed rings are dropped: the state stays small.
        #expect(rig.engine.state.preAlarms == nil)
    }

    @Test func eventsInsideTheLeadWriteNothingTwice() throws {
        var rig = Rig([try Self.wake()], now: Self.t0, zone: Self.utc)
        rig.run(until: at("2026-11-23T06:31:00Z"))
        #expect(written(rig) == ["2026-11-23T07:00:00+00:00 30m"])
        // A reload, a relabel (same schedule), a settings change, a clock set to the same time:
        // none writes it again.
        rig.change(to: rig.store)
        var relabelled = try Self.wake()
        relabelled.label = "Up"
        rig.change(to: [relabelled], at: at("2026-11-23T06:32:00Z"))
        rig.send(.settingsChanged(Rig.settings))
        rig.jump(to: at("2026-11-23T06:33:00Z"))
        rig.send(.timerFired, at: at("2026-11-23T06:34:00Z"))
        #expect(written(rig) == ["2026-11-23T07:00:00+00:00 30m"])
        rig.run(until: at("2026-11-23T06:51:00Z"))
        #expect(written(rig) == ["2026-11-23T07:00:00+00:00 30m", "2026-11-23T07:00:00+00:00 10m"])
        #expect(rig.preAlarms.last?.label == "Up")
    }

    @Test func aRestartFromThePersistedStateWritesNoPreAlarmTwice() throws {
        var rig = Rig([try Self.wake()], now: Self.t0, zone: Self.utc)
        rig.run(until: at("2026-11-23T06:31:00Z"))
        #expect(rig.preAlarms.count == 1)
        // Through state.json's bytes, as alarmd saves and reads them.
        let bytes = try EngineStateJSON.encode(#require(rig.persisted))
        #expect(String(decoding: bytes, as: UTF8.self).contains("\"preAlarms\""))
        rig.persisted = try EngineStateJSON.decode(bytes)
        rig.restart(at: at("2026-11-23T06:40:00Z"))
        #expect(rig.preAlarms.count == 1, "the 30m pre-alarm was written before the restart")
        rig.run(until: at("2026-11-23T06:55:00Z"))
        #expect(written(rig) == ["2026-11-23T07:00:00+00:00 30m", "2026-11-23T07:00:00+00:00 10m"])
        // A crash right after: the 10m one is not written again either.
        rig.restart(at: at("2026-11-23T06:56:00Z"))
        #expect(rig.preAlarms.count == 2)
    }

    @Test func aStateSavedBeforePreAlarmsReadsUnchanged() throws {
        let old = Array(#"{"marks":{"wake":785000000},"ring":{"state":"idle"},"processedThrough":785000000}"#.utf8)
        let state = try EngineStateJSON.decode(old)
        #expect(state.preAlarms == nil)
        #expect(state.marks["wake"] == Date(timeIntervalSinceReferenceDate: 785_000_000))
    }

    // MARK: late

    @Test func aStartInsideTheLeadWritesItLateAndTheNextOnTime() throws {
        var rig = Rig([try Self.wake()], now: Self.t0, zone: Self.utc)
        rig.send(.shutdown)
        rig.restart(at: at("2026-11-23T06:40:00Z"))
        #expect(written(rig) == ["2026-11-23T07:00:00+00:00 30m late"])
        #expect(rig.preAlarmTimes == [at("2026-11-23T06:40:00Z")])
        #expect(rig.timer == at("2026-11-23T06:50:00Z"))
        rig.run(until: at("2026-11-23T06:51:00Z"))
        #expect(written(rig) == ["2026-11-23T07:00:00+00:00 30m late", "2026-11-23T07:00:00+00:00 10m"])
    }

    @Test func aStartAfterTheRingsInstantWritesNoPreAlarm() throws {
        var rig = Rig([try Self.wake()], now: Self.t0, zone: Self.utc)
        rig.send(.shutdown)
        rig.restart(at: at("2026-11-23T07:02:00Z"))
        #expect(rig.preAlarms.isEmpty, "its ring is late already; the pre-alarms are not written after it")
        #expect(rig.rings.count == 1 && rig.rings[0].late)
    }

    @Test func anAlarmAddedInsideTheLeadGetsItLate() throws {
        var rig = Rig([], now: at("2026-11-23T06:45:00Z"), zone: Self.utc)
        rig.change(to: [try Self.wake(created: at("2026-11-23T06:45:00Z"))])
        #expect(written(rig) == ["2026-11-23T07:00:00+00:00 30m late"])
        rig.run(until: at("2026-11-23T06:51:00Z"))
        #expect(written(rig) == ["2026-11-23T07:00:00+00:00 30m late", "2026-11-23T07:00:00+00:00 10m"])
    }

    // MARK: rings that will not happen

    @Test func aSkippedOccurrenceGetsNoPreAlarm() throws {
        var a = try Self.wake()
        a.skipNext = true
        var rig = Rig([a], now: Self.t0, zone: Self.utc)
        #expect(rig.status?.next?.at == at("2026-11-24T07:00:00Z"))
        runStopping(&rig, until: at("2026-11-24T12:00:00Z"))
        #expect(written(rig) == ["2026-11-24T07:00:00+00:00 30m", "2026-11-24T07:00:00+00:00 10m"])
    }

    @Test func aSkipAfterThePreAlarmWritesNothingMoreForThatOccurrence() throws {
        var rig = Rig([try Self.wake()], now: Self.t0, zone: Self.utc)
        rig.run(until: at("2026-11-23T06:35:00Z"))
        #expect(rig.preAlarms.count == 1)
        var skipped = try Self.wake()
        skipped.skipNext = true
        rig.change(to: [skipped])
        #expect(rig.timer == at("2026-11-23T07:00:00Z"), "woken for the skipped occurrence, to record it")
        runStopping(&rig, until: at("2026-11-24T12:00:00Z"))
        #expect(
            written(rig) == [
                "2026-11-23T07:00:00+00:00 30m", "2026-11-24T07:00:00+00:00 30m", "2026-11-24T07:00:00+00:00 10m",
            ])
        #expect(rig.rings.map(\.scheduled) == [at("2026-11-24T07:00:00Z")])
    }

    @Test func anUnskipInsideTheLeadWritesOnlyTheLeadsNotYetWritten() throws {
        var rig = Rig([try Self.wake()], now: Self.t0, zone: Self.utc)
        rig.run(until: at("2026-11-23T06:35:00Z"))
        var skipped = try Self.wake()
        skipped.skipNext = true
        rig.change(to: [skipped])
        rig.change(to: [try Self.wake()], at: at("2026-11-23T06:52:00Z"))
        #expect(written(rig) == ["2026-11-23T07:00:00+00:00 30m", "2026-11-23T07:00:00+00:00 10m late"])
    }

    @Test func pausedOccurrencesGetNoPreAlarm() throws {
        var a = try Self.wake()
        a.pause = .until(try ScheduleBound.parse("2026-11-25"))
        var rig = Rig([a], now: Self.t0, zone: Self.utc)
        runStopping(&rig, until: at("2026-11-25T12:00:00Z"))
        #expect(written(rig) == ["2026-11-25T07:00:00+00:00 30m", "2026-11-25T07:00:00+00:00 10m"])
        #expect(rig.history.filter { $0.outcome == .paused }.count == 2)
    }

    @Test func aPauseAfterThePreAlarmWritesNothingMore() throws {
        var rig = Rig([try Self.wake()], now: Self.t0, zone: Self.utc)
        rig.run(until: at("2026-11-23T06:35:00Z"))
        var paused = try Self.wake()
        paused.pause = .indefinitely
        rig.change(to: [paused])
        rig.run(until: at("2026-11-25T12:00:00Z"))
        #expect(written(rig) == ["2026-11-23T07:00:00+00:00 30m"])
        #expect(rig.rings.isEmpty)
    }

    @Test func holidayOccurrencesGetNoPreAlarm() throws {
        var a = try Self.wake()
        a.skipHolidays = true
        var rig = Rig(
            [a], now: Self.t0, zone: Self.utc, holidays: try HolidayCalendar.parse("2026-11-23 Day of Rest\n"))
        runStopping(&rig, until: at("2026-11-24T12:00:00Z"))
        #expect(written(rig) == ["2026-11-24T07:00:00+00:00 30m", "2026-11-24T07:00:00+00:00 10m"])
        #expect(rig.history.first?.outcome == .skipped)
    }

    // MARK: snooze, settings, zones

    @Test func aSnoozesReRingGetsNoPreAlarm() throws {
        var rig = Rig([try Self.wake("2m")], now: Self.t0, zone: Self.utc)
        rig.run(until: at("2026-11-23T07:00:10Z"))
        rig.played()
        rig.send(.snooze(300))
        rig.run(until: at("2026-11-23T07:06:00Z"))
        #expect(rig.rings.count == 2, "the snooze ended and it rang again")
        rig.send(.stop)
        #expect(written(rig) == ["2026-11-23T07:00:00+00:00 2m"])
    }

    @Test func theConfigsLeadsApplyToAlarmsWithoutTheirOwn() throws {
        var settings = Rig.settings
        settings.preAlarm = try PreAlarmLeads.parse("15m")
        var own = try Self.wake("5m", expr: "08:00")
        own.id = "own"
        var rig = Rig([try Self.wake(label: nil).withoutLeads, own], now: Self.t0, zone: Self.utc, settings: settings)
        rig.run(until: at("2026-11-23T07:59:00Z"))
        #expect(rig.preAlarms.map { "\($0.alarm) \(Durations.format($0.lead))" } == ["wake 15m", "own 5m"])
        #expect(rig.preAlarmTimes == [at("2026-11-23T06:45:00Z"), at("2026-11-23T07:55:00Z")])
    }

    @Test func theLeadIsElapsedTimeAcrossTheSpringForwardInNewYork() throws {
        let ny = zone("America/New_York")
        let created = at("2026-03-07T12:00:00Z")
        var rig = Rig([try Self.wake("6h", created: created)], now: created, zone: ny)
        // 07:00 EDT on 2026-03-08 is 11:00Z; six hours before is 05:00Z (00:00 EST).
        #expect(rig.timer == at("2026-03-08T05:00:00Z"))
        rig.run(until: at("2026-03-08T05:00:01Z"))
        #expect(rig.preAlarms.map(\.scheduled) == [at("2026-03-08T11:00:00Z")])
        #expect(rig.preAlarms.map(\.lead) == [TimeInterval(6 * 3600)])
        #expect(rig.preAlarms.first?.zoneIdentifier == "America/New_York")
    }

    @Test func aZoneChangeThatMovesTheRingWritesThePreAlarmOfTheNewRing() throws {
        var rig = Rig([try Self.wake()], now: Self.t0, zone: Self.utc)
        rig.run(until: at("2026-11-23T06:31:00Z"))
        // An hour east: the floating 07:00 moves to 06:00Z. On the 23rd that has passed, so the
        // next ring is the 24th at 06:00Z: a new ring instant, with its own pre-alarms.
        rig.changeZone(zone("Europe/Paris"))
        // 07:00 Paris on the 23rd (06:00Z) has passed; the next ring is the 24th at 06:00Z.
        #expect(rig.status?.next?.at == at("2026-11-24T06:00:00Z"))
        rig.run(until: at("2026-11-24T05:51:00Z"))
        #expect(
            written(rig) == [
                "2026-11-23T07:00:00+00:00 30m", "2026-11-24T06:00:00+00:00 30m", "2026-11-24T06:00:00+00:00 10m",
            ])
    }

    @Test func aLeadLongerThanTheGapIsWrittenLateOnceThePreviousRingIsHandled() throws {
        // Every 10 minutes from 07:00, with a 15-minute lead.
        var rig = Rig([try Self.wake("15m", expr: "*-*-* 07:00,10,20:00")], now: Self.t0, zone: Self.utc)
        runStopping(&rig, until: at("2026-11-23T07:05:00Z"))
        #expect(written(rig) == ["2026-11-23T07:00:00+00:00 15m", "2026-11-23T07:10:00+00:00 15m late"])
        #expect(rig.preAlarmTimes == [at("2026-11-23T06:45:00Z"), at("2026-11-23T07:00:00Z")])
    }
}

extension Alarm {
    fileprivate var withoutLeads: Alarm {
        var a = self
        a.preAlarm = nil
        return a
    }
}
