import Foundation
import Testing

@testable import AlarmCore

/// Issue #12 in the engine: paused occurrences are recorded `paused` (never rung, never
/// `missed`), holiday ones `skipped` with the holiday's name, each exactly once and at its
/// instant; an alarm whose last occurrence passed ends (`ended`) and leaves the store; all of it
/// on the incremental path (`dueHint`) as on a visit of every alarm.
@Suite struct EngineScheduleRulesTests {
    static let t0 = at("2026-11-22T12:00:00Z")  // a Sunday
    static let utc = zone("UTC")

    static func daily(
        _ id: String = "wake", _ expr: String = "07:00", pause: Pause? = nil, skipHolidays: Bool = false,
        every: String? = nil, from: String? = nil, until: String? = nil
    ) throws -> Alarm {
        var a = try alarm(id, expr, created: t0)
        a.pause = pause
        a.skipHolidays = skipHolidays
        a.every = try every.map(RepeatInterval.parse)
        a.from = try from.map(ScheduleBound.parse)
        a.until = try until.map(ScheduleBound.parse)
        return a
    }

    /// alarmd ran with `a` at `t0`, was shut down and started again at `time`.
    func restarted(with a: Alarm, at time: Date) -> Rig {
        var rig = Rig([a], now: Self.t0, zone: Self.utc)
        rig.send(.shutdown)
        rig.restart(at: time)
        return rig
    }

    func outcomes(_ rig: Rig, _ id: String = "wake") -> [String] {
        rig.history.filter { $0.alarm == id }.map { "\(RFC3339.format($0.scheduled, in: .utc)) \($0.outcome.rawValue)" }
    }

    // MARK: pause

    @Test func pausedOccurrencesAreRecordedOnceAtTheirInstantNeverRungNeverMissed() throws {
        let a = try Self.daily(pause: .until(try ScheduleBound.parse("2026-11-25")))
        var rig = Rig([a], now: Self.t0, zone: Self.utc)
        #expect(rig.timer == at("2026-11-23T07:00:00Z"), "the engine wakes for a paused occurrence too")
        #expect(rig.status?.next?.at == at("2026-11-25T07:00:00Z"), "the next ring is after the pause")
        #expect(rig.status?.paused == [.init(id: "wake", until: at("2026-11-25T00:00:00Z"))])
        rig.run(until: at("2026-11-23T07:00:01Z"))
        #expect(rig.history.last?.outcome == .paused)
        #expect(rig.history.last?.reason == "paused until 2026-11-25")
        #expect(rig.history.last?.scheduled == at("2026-11-23T07:00:00Z"))
        for day in ["24", "25", "26"] {
            rig.run(until: at("2026-11-\(day)T07:05:00Z"))
            if rig.playing != nil { rig.send(.stop) }
        }
        #expect(
            outcomes(rig) == [
                "2026-11-23T07:00:00+00:00 paused", "2026-11-24T07:00:00+00:00 paused",
                "2026-11-25T07:00:00+00:00 stopped",
                "2026-11-26T07:00:00+00:00 stopped",
            ])
        #expect(rig.rings.map(\.scheduled) == [at("2026-11-25T07:00:00Z"), at("2026-11-26T07:00:00Z")])
        // The pause is over: the store forgets it, and status no longer lists it.
        #expect(rig.store.first?.pause == nil)
        #expect(rig.status?.paused == [])
    }

    @Test func aPauseUntilResumeRingsNothingAndResumeRingsAgain() throws {
        var a = try Self.daily(pause: .indefinitely)
        var rig = Rig([a], now: Self.t0, zone: Self.utc)
        #expect(rig.status?.next == nil)
        #expect(rig.status?.paused == [.init(id: "wake", until: nil)])
        rig.run(until: at("2026-11-25T12:00:00Z"))
        #expect(rig.rings.isEmpty)
        #expect(
            outcomes(rig).count == 3
                && rig.history.allSatisfy { $0.outcome == .paused && $0.reason == "paused until alarm resume" })
        // alarm resume: the store writes the alarm without its pause.
        a.pause = nil
        rig.change(to: [a])
        #expect(rig.status?.next?.at == at("2026-11-26T07:00:00Z"))
        #expect(rig.history.count == 3, "resuming records nothing and rings nothing of the past")
        rig.run(until: at("2026-11-26T07:00:01Z"))
        #expect(rig.rings.map(\.scheduled) == [at("2026-11-26T07:00:00Z")])
    }

    @Test func occurrencesPausedWhileTheDaemonWasDownAreRecordedPausedNotMissed() throws {
        let a = try Self.daily(pause: .until(.instant(at("2026-11-26T00:00:00Z"))))
        var rig = restarted(with: a, at: at("2026-11-26T07:03:00Z"))
        #expect(
            outcomes(rig) == [
                "2026-11-23T07:00:00+00:00 paused", "2026-11-24T07:00:00+00:00 paused",
                "2026-11-25T07:00:00+00:00 paused",
            ])
        // The first after the pause passed 3 minutes ago, within grace: it rings, late.
        #expect(rig.rings.map(\.scheduled) == [at("2026-11-26T07:00:00Z")])
        #expect(rig.rings.first?.late == true)
        // Restarting again records nothing twice.
        rig.send(.stop)
        rig.restart(at: at("2026-11-26T08:00:00Z"))
        #expect(outcomes(rig).filter { $0.hasSuffix("paused") }.count == 3)
    }

    @Test func aLongPauseOfAnOftenRepeatingAlarmIsNotListedOneByOneInACatchUp() throws {
        let a = try Self.daily("often", "*:*:00", pause: .until(.instant(at("2026-11-23T12:00:00Z"))))
        var rig = Rig([a], now: Self.t0, zone: Self.utc)
        rig.send(.shutdown)
        rig.restart(at: at("2026-11-23T13:00:00Z"))  // 24 h of minutely occurrences paused, 1 h not
        let paused = rig.history.filter { $0.outcome == .paused }
        #expect(paused.count == Engine.missedListLimit)
        #expect(rig.logged(.warning, containing: "more than \(Engine.missedListLimit) paused or skipped"))
        #expect(
            !rig.history.contains { $0.outcome == .missed && $0.scheduled < at("2026-11-23T12:00:00Z") },
            "never missed while paused")
    }

    // MARK: holidays

    @Test func anOccurrenceOnAHolidayIsSkippedWithTheHolidaysName() throws {
        let holidays = try HolidayCalendar.parse("2026-11-24 Day of Rest\n")
        let work = try Self.daily("work", "Mon..Fri 07:00", skipHolidays: true)
        let other = try Self.daily("other", "Mon..Fri 07:30")
        var rig = Rig([work, other], now: Self.t0, zone: Self.utc, holidays: holidays)
        rig.run(until: at("2026-11-23T07:01:00Z"))
        rig.send(.stop)
        #expect(rig.status?.next?.id == "other", "the alarm without --skip-holidays rings on the holiday")
        rig.run(until: at("2026-11-25T07:01:00Z"))
        if rig.playing != nil { rig.send(.stop) }
        #expect(
            outcomes(rig, "work") == [
                "2026-11-23T07:00:00+00:00 stopped", "2026-11-24T07:00:00+00:00 skipped",
                "2026-11-25T07:00:00+00:00 stopped",
            ])
        let skipped = try #require(rig.history.first { $0.outcome == .skipped })
        #expect(skipped.reason == "holiday: Day of Rest")
        #expect(skipped.late == false && skipped.started == nil)
        #expect(!rig.rings.contains { $0.alarm == "work" && $0.scheduled == at("2026-11-24T07:00:00Z") })
        #expect(rig.rings.contains { $0.alarm == "other" && $0.scheduled == at("2026-11-24T07:30:00Z") })
    }

    @Test func newHolidaysApplyFromTheEventOn() throws {
        let work = try Self.daily("work", "Mon..Fri 07:00", skipHolidays: true)
        var rig = Rig([work], now: Self.t0, zone: Self.utc)
        #expect(rig.status?.next?.at == at("2026-11-23T07:00:00Z"))
        rig.send(.holidaysChanged(try HolidayCalendar.parse("2026-11-23..2026-11-24 Short break")))
        #expect(rig.status?.next?.at == at("2026-11-25T07:00:00Z"))
        rig.run(until: at("2026-11-24T12:00:00Z"))
        #expect(rig.rings.isEmpty)
        #expect(outcomes(rig, "work") == ["2026-11-23T07:00:00+00:00 skipped", "2026-11-24T07:00:00+00:00 skipped"])
        rig.send(.holidaysChanged(.empty))
        rig.run(until: at("2026-11-25T07:00:01Z"))
        #expect(rig.rings.map(\.scheduled) == [at("2026-11-25T07:00:00Z")])
    }

    @Test func aHolidayDoesNotUseUpASkip() throws {
        var work = try Self.daily("work", "Mon..Fri 07:00", skipHolidays: true)
        work.skipNext = true
        var rig = Rig([work], now: Self.t0, zone: Self.utc, holidays: try HolidayCalendar.parse("2026-11-23 Holiday"))
        // Monday is a holiday, Tuesday is skipped as asked: Wednesday rings.
        #expect(rig.status?.next?.at == at("2026-11-25T07:00:00Z"))
        rig.run(until: at("2026-11-25T07:00:01Z"))
        #expect(rig.rings.map(\.scheduled) == [at("2026-11-25T07:00:00Z")])
        #expect(outcomes(rig, "work").first == "2026-11-23T07:00:00+00:00 skipped")
        #expect(rig.store.first?.skipNext == false)
    }

    // MARK: every, until, ended

    @Test func anAlarmEndsAfterItsLastOccurrenceAndHistorySaysSo() throws {
        let a = try Self.daily(until: "2026-11-24")
        var rig = Rig([a], now: Self.t0, zone: Self.utc)
        rig.run(until: at("2026-11-23T07:01:00Z"))
        rig.send(.stop)
        #expect(rig.store.count == 1)
        rig.run(until: at("2026-11-24T07:00:00Z"))
        #expect(rig.store.isEmpty, "removed when its last occurrence comes")
        #expect(rig.engine.alarms.isEmpty)
        #expect(rig.last.contains(.removeAlarm(a)))
        let ended = try #require(rig.history.last)
        #expect(ended.outcome == .ended)
        #expect(ended.scheduled == at("2026-11-24T07:00:00Z"))
        #expect(ended.reason?.contains("until 2026-11-24") == true)
        #expect(rig.playing?.scheduled == at("2026-11-24T07:00:00Z"), "the last occurrence still rings")
        rig.send(.stop)
        #expect(
            outcomes(rig) == [
                "2026-11-23T07:00:00+00:00 stopped", "2026-11-24T07:00:00+00:00 ended",
                "2026-11-24T07:00:00+00:00 stopped",
            ])
        #expect(rig.status?.next == nil)
        rig.run(until: at("2026-11-30T00:00:00Z"))
        #expect(rig.rings.count == 2)
    }

    @Test func anExpressionThatRunsOutEndsToo() throws {
        let a = try Self.daily("years", "2026..2027-11-23 07:00")
        var rig = Rig([a], now: Self.t0, zone: Self.utc)
        rig.run(until: at("2026-11-23T07:01:00Z"))
        rig.send(.stop)
        #expect(rig.store.count == 1)
        rig.run(until: at("2027-11-23T07:01:00Z"))
        rig.send(.stop)
        #expect(rig.store.isEmpty)
        #expect(outcomes(rig, "years").contains("2027-11-23T07:00:00+00:00 ended"))
    }

    @Test func anAlarmEndedWhileTheDaemonWasDownEndsAtStart() throws {
        let a = try Self.daily(until: "2026-11-24")
        let rig = restarted(with: a, at: at("2026-11-30T00:00:00Z"))
        #expect(
            outcomes(rig) == [
                "2026-11-23T07:00:00+00:00 missed", "2026-11-24T07:00:00+00:00 missed",
                "2026-11-24T07:00:00+00:00 ended",
            ])
        #expect(rig.store.isEmpty)
    }

    @Test func everyOtherMondayRingsOnlyThen() throws {
        let a = try Self.daily("biweekly", "Mon 06:30", every: "2w", from: "2026-11-23")
        var rig = Rig([a], now: Self.t0, zone: zone("Europe/Berlin"))
        for _ in 0..<5 {
            rig.run(for: 7 * 86400)
            if rig.playing != nil { rig.send(.stop) }
        }
        #expect(
            rig.rings.map(\.scheduled)
                == ["2026-11-23T05:30:00Z", "2026-12-07T05:30:00Z", "2026-12-21T05:30:00Z"].map { at($0) })
        #expect(!rig.history.contains { $0.outcome == .missed || $0.outcome == .paused || $0.outcome == .skipped })
    }

    @Test func aNewUntilIsANewScheduleButANewPauseIsNot() throws {
        let a = try Self.daily()
        var rig = Rig([a], now: Self.t0, zone: Self.utc)
        var paused = a
        paused.pause = .indefinitely
        #expect(rig.engine.replaceAlarmsForTest([paused], now: rig.now).isEmpty)
        var bounded = a
        bounded.until = try ScheduleBound.parse("2026-12-31")
        #expect(rig.engine.replaceAlarmsForTest([bounded], now: rig.now) == [0])
        #expect(!a.sameSchedule(as: bounded) && a.sameSchedule(as: paused))
    }

    // MARK: the incremental path

    /// Random days of pauses, resumes, holiday changes, restarts and reactions with alarms of
    /// every kind of rule: the engine that visits only what is due rings, records and shows
    /// what the one visiting every alarm at every event does.
    @Test(arguments: 0..<8)
    func visitingOnlyWhatIsDueChangesNothingObservable(seed: Int) throws {
        var rng = SeededRandom(seed: UInt64(seed) &* 977 &+ 3)
        let shapes: [(String, String?, String?, String?)] = [
            ("07:00", nil, nil, nil), ("Mon..Fri 06:45", "2w", "2026-11-23", nil),
            ("*:00/20", nil, nil, "2026-11-26T12:00"),
            ("06:00", "3d", "2026-11-22", nil), ("Sat,Sun 09:00", nil, "2026-11-28", "2026-12-20"),
            ("*:07", nil, nil, nil),
        ]
        var list: [Alarm] = []
        for (n, s) in shapes.enumerated() {
            var a = try Self.daily("a\(n)", s.0, every: s.1, from: s.2, until: s.3)
            a.skipHolidays = n % 2 == 0
            list.append(a)
        }
        var exact = Alarm(id: "exact", trigger: .instant(at("2026-11-22T12:10:00Z")), created: Self.t0)
        exact.every = .seconds(5400)
        exact.skipHolidays = true
        list.append(exact)
        let calendars = [
            try HolidayCalendar.parse("2026-11-23 D\n2026-11-25..2026-11-26 E\n2026-12-01..2026-12-02 F"),
            try HolidayCalendar.parse("2026-11-24 A\n2026-11-27..2026-11-29 B\n2026-12-03 C"),
        ]
        var fast = Rig(list, now: Self.t0, zone: Self.utc, holidays: calendars[1])
        var full = Rig(list, now: Self.t0, zone: Self.utc, holidays: calendars[1])
        full.visitAll = true
        for step in 0..<160 {
            let roll = Int.random(in: 0..<10, using: &rng)
            let dt = Double(Int.random(in: 1...(5 * 3600), using: &rng))
            var edit: [Alarm]? = nil
            if roll == 3 || roll == 4 {
                var l = fast.store
                if !l.isEmpty {
                    let i = Int.random(in: 0..<l.count, using: &rng)
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0: l[i].pause = .indefinitely
                    case 1:
                        l[i].pause = .until(
                            .instant(fast.now.addingTimeInterval(Double(Int.random(in: 600...200_000, using: &rng)))))
                    default: l[i].pause = nil
                    }
                }
                edit = l
            }
            let cal = calendars.randomElement(using: &rng)!
            let back = Double(Int.random(in: 1...3000, using: &rng))
            for k in 0..<2 {
                var rig = k == 0 ? fast : full
                switch roll {
                case 0, 1, 2: rig.run(for: dt)
                case 3, 4:
                    rig.change(to: edit!, at: rig.now.addingTimeInterval(30))
                case 5: rig.send(.holidaysChanged(cal))
                case 6: rig.restart(at: rig.now.addingTimeInterval(dt / 3))
                case 7: rig.jump(to: rig.now.addingTimeInterval(-back))
                case 8: rig.send(.stop)
                default: rig.send(.snooze(nil))
                }
                if k == 0 { fast = rig } else { full = rig }
            }
            let same = fast.agrees(with: full)
            #expect(
                same,
                "seed \(seed), step \(step), roll \(roll): the two engines differ: rings \(fast.rings == full.rings), history \(fast.history == full.history) \(fast.history.count)/\(full.history.count) \(fast.history.last.map { "\($0.alarm ?? "") \($0.scheduled) \($0.outcome)" } ?? "") / \(full.history.last.map { "\($0.alarm ?? "") \($0.scheduled) \($0.outcome)" } ?? ""), status \(fast.status == full.status) \(String(describing: fast.status?.next)) / \(String(describing: full.status?.next)), timer \(String(describing: fast.timer)) / \(String(describing: full.timer)), store \(fast.store == full.store)"
            )
            if !same { return }
        }
        #expect(!fast.rings.isEmpty)
        #expect(fast.history.contains { $0.outcome == .paused })
        #expect(fast.history.contains { $0.outcome == .skipped })
        // Exactly once: no occurrence of an alarm recorded twice with a non-episode outcome.
        let once = fast.history.filter { [.paused, .skipped, .missed, .ended].contains($0.outcome) }
        #expect(Set(once.map { "\($0.alarm ?? "") \($0.scheduled) \($0.outcome)" }).count == once.count)
    }
}

extension Engine {
    /// `replaceAlarms` as a reload runs it, for tests: the indices of the alarms that start afresh.
    mutating func replaceAlarmsForTest(_ list: [Alarm], now: Date) -> [Int] {
        var fx = Effects()
        return replaceAlarms(list, now: now, &fx)
    }
}
