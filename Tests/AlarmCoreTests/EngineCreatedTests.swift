import Foundation
import Testing

@testable import AlarmCore

/// Issue #9: every alarm knows when it was made. Occurrences at or before `created` never ring;
/// every later one rings once, on time or late within grace, or is recorded missed, however
/// late the daemon learns about the alarm. No look-back heuristics.
@Suite struct EngineCreatedTests {
    let utc = zone("UTC")

    @Test func issue9_dailyAlarmAddedForATime3SecondsAgoWaitsForTomorrow() throws {
        var rig = Rig([], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:03Z"))
        let a = try alarm("late", "07:00:00", created: at("2026-05-04T07:00:03Z"))
        rig.change(to: [a], at: at("2026-05-04T07:00:03.400Z"))
        #expect(rig.rings.isEmpty)
        #expect(rig.history.isEmpty)
        #expect(rig.timer == at("2026-05-05T07:00:00Z"))
        rig.run(until: at("2026-05-05T07:00:00Z"))
        #expect(rig.rings.map(\.scheduled) == [at("2026-05-05T07:00:00Z")])
        #expect(rig.rings.first?.late == false)
    }

    @Test func issue9_every3SecondsAddedAt59_7DoesNotRingItsSecond57() throws {
        var rig = Rig([], now: at("2026-05-04T12:00:00Z"), zone: utc)
        let a = try alarm("often", "*:*:0/3", created: at("2026-05-04T12:00:59.700Z"))
        rig.change(to: [a], at: at("2026-05-04T12:01:00.200Z"))
        #expect(rig.rings.map(\.scheduled) == [at("2026-05-04T12:01:00Z")])
        #expect(rig.history.isEmpty)
    }

    @Test func issue9_onceAlarmDueWhileTheDaemonWasDownWithoutSavedStateRingsLate() throws {
        // alarmd stopped, no saved state; `alarm add <2 s ahead> --once`; alarmd starts 4 s later.
        let made = at("2026-05-04T07:00:00Z")
        let a = try alarm("soon", "07:00:02", once: true, created: made)
        let rig = Rig([a], now: at("2026-05-04T07:00:05Z"), zone: utc)
        #expect(rig.rings.map(\.scheduled) == [at("2026-05-04T07:00:02Z")])
        #expect(rig.rings.first?.late == true)
        #expect(rig.store.isEmpty)
    }

    @Test func issue9_instantAlarmDueWhileDownBeyondGraceIsRecordedMissed() throws {
        let made = at("2026-05-04T07:00:00Z")
        let a = instantAlarm("tea", at("2026-05-04T07:00:02Z"), created: made)
        let rig = Rig([a], now: at("2026-05-04T08:00:00Z"), zone: utc)
        #expect(rig.rings.isEmpty)
        #expect(rig.history.map(\.outcome) == [.missed])
        #expect(rig.history.first?.scheduled == at("2026-05-04T07:00:02Z"))
        #expect(rig.store.isEmpty)
    }

    @Test func issue9_alarmFirstSeenLongAfterItsInstantRingsLateWithinGrace() throws {
        // The crash-safety test's r227: acknowledged before its instant, seen 30 s after it.
        var rig = Rig([], now: at("2026-05-04T06:00:00Z"), zone: utc)
        let a = instantAlarm("r227", at("2026-05-04T07:00:00Z"), created: at("2026-05-04T06:59:58Z"))
        rig.change(to: [a], at: at("2026-05-04T07:00:30Z"))
        #expect(rig.rings.map(\.alarm) == ["r227"])
        #expect(rig.rings.first?.late == true)
        #expect(rig.store.isEmpty)
    }

    @Test func issue9_alarmFirstSeenBeyondGraceIsRecordedMissedNotDropped() throws {
        var rig = Rig([], now: at("2026-05-04T06:00:00Z"), zone: utc)
        let a = try alarm("wake", "07:00", created: at("2026-05-04T06:59:00Z"))
        rig.change(to: [a], at: at("2026-05-04T07:20:00Z"))
        #expect(rig.rings.isEmpty)
        #expect(rig.history.map(\.outcome) == [.missed])
        #expect(rig.history.first?.scheduled == at("2026-05-04T07:00:00Z"))
    }

    /// An alarm the store gained, or whose trigger changed, while the daemon was down (with saved
    /// state): made after its instant today, so it first rings tomorrow.
    struct ChangedWhileDown: CustomTestStringConvertible, Sendable {
        var testDescription: String
        /// The trigger alarmd ran with (made the day before), or nil: no alarm yet.
        var running: String?
        var stopped: String
        /// The trigger in the store at the restart, and when it was made.
        var stored: String
        var created: String
        var restart: String
        var firstRing: String
    }

    static let changedWhileDown: [ChangedWhileDown] = [
        // Added at 07:02, after its 07:00 occurrence, while the daemon was down.
        .init(
            testDescription:
                "issue 9: an alarm added while down with saved state counts from created, not from the last run",
            running: nil, stopped: "2026-05-04T06:00:00Z", stored: "07:00", created: "2026-05-04T07:02:00Z",
            restart: "2026-05-04T07:05:00Z", firstRing: "2026-05-05T07:00:00Z"),
        // Changed to 06:30 at 06:40 while the daemon was down. (The old trigger's 06:00 is gone
        // with the old version of the alarm: the store no longer says it existed.)
        .init(
            testDescription: "issue 9: a trigger changed while down counts from the new created",
            running: "06:00", stopped: "2026-05-04T05:00:00Z", stored: "06:30", created: "2026-05-04T06:40:00Z",
            restart: "2026-05-04T06:41:00Z", firstRing: "2026-05-05T06:30:00Z"),
    ]

    @Test(arguments: changedWhileDown)
    func issue9_changedWhileDownCountsFromCreated(_ c: ChangedWhileDown) throws {
        let before = try c.running.map { [try alarm("wake", $0, created: at("2026-05-03T12:00:00Z"))] } ?? []
        var rig = Rig(before, now: at(c.stopped), zone: utc)
        rig.store = [try alarm("wake", c.stored, created: at(c.created))]
        rig.restart(at: at(c.restart))
        #expect(rig.rings.isEmpty)
        #expect(rig.history.isEmpty)
        #expect(rig.timer == at(c.firstRing))
    }

    @Test func issue9_triggerChangedWhileRunningCountsFromTheNewCreated() throws {
        var rig = Rig(
            [try alarm("wake", "08:00", created: at("2026-05-03T12:00:00Z"))], now: at("2026-05-04T06:00:00Z"),
            zone: utc)
        let changed = try alarm("wake", "06:59:59", created: at("2026-05-04T06:59:58Z"))
        rig.change(to: [changed], at: at("2026-05-04T07:00:01Z"))
        #expect(rig.rings.map(\.scheduled) == [at("2026-05-04T06:59:59Z")])
    }

    @Test func issue9_reAddingTheSameAlarmNeverRingsAnOccurrenceTwice() throws {
        let a = try alarm("wake", "07:00", created: at("2026-05-03T12:00:00Z"))
        var rig = Rig([a], now: at("2026-05-04T06:00:00Z"), zone: utc)
        rig.run(until: at("2026-05-04T07:00:00Z"))
        rig.send(.stop, at: at("2026-05-04T07:00:30Z"))
        rig.change(to: [])
        // The clock is set back 10 minutes and the alarm added again.
        rig.jump(to: at("2026-05-04T06:50:00Z"))
        let again = try alarm("wake", "07:00", created: at("2026-05-04T06:50:01Z"))
        rig.change(to: [again])
        rig.run(until: at("2026-05-04T07:30:00Z"))
        #expect(rig.rings.count == 1)
    }

    @Test func issue9_createdByAClockSinceSetBackFarIsNotTrusted() throws {
        // The alarm was added while the clock was days ahead; the clock was then corrected.
        var rig = Rig([], now: at("2026-06-01T00:00:00Z"), zone: utc)
        rig.jump(to: at("2026-05-04T06:00:00Z"))
        let a = try alarm("wake", "07:00", created: at("2026-06-01T00:00:05Z"))
        rig.change(to: [a])
        rig.run(until: at("2026-05-04T07:00:00Z"))
        #expect(rig.rings.count == 1)
    }

    @Test func createdRoundTripsThroughTheStoreFormatToTheMillisecond() throws {
        let a = try alarm("wake", "07:00", created: Date(timeIntervalSince1970: 1_777_777_777.123_456))
        let back = try JSONDecoder().decode(Alarm.self, from: JSONEncoder().encode(a))
        #expect(back == a)
        #expect(back.created == Date(timeIntervalSince1970: 1_777_777_777.123))
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(a)) as? [String: Any]
        #expect(object?["created"] as? String == "2026-05-03T03:09:37.123+00:00")
    }
}
