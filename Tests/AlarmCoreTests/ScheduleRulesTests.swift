import Foundation
import Testing

@testable import AlarmCore

/// Issue #12: `--every`, `--from`, `--until` and pauses as pure functions of an alarm
/// (`Alarm.nextRing`, `Alarm.fate`, `Alarm.nextSounding`). Each table row: the alarm, the zone
/// its floating wall clock is read in, the instant to search after, the rings expected.
@Suite struct ScheduleRulesTests {
    static func rules(
        _ expr: String?, at anchor: String? = nil, every: String? = nil, from: String? = nil, until: String? = nil
    ) throws -> Alarm {
        let trigger: AlarmTrigger = try expr.map { .calendar(try CalendarExpression($0)) } ?? .instant(at(anchor!))
        return Alarm(
            id: "a", trigger: trigger, every: try every.map(RepeatInterval.parse),
            from: try from.map(ScheduleBound.parse),
            until: try until.map(ScheduleBound.parse))
    }

    /// The first `n` rings after `after`.
    static func rings(_ a: Alarm, after: String, zone z: String, count n: Int) -> [Date] {
        var out: [Date] = []
        var cursor = at(after)
        while out.count < n, let t = a.nextRing(after: cursor, systemZone: zone(z)) {
            out.append(t)
            cursor = t
        }
        return out
    }

    struct Row: CustomTestStringConvertible, Sendable {
        var name: String
        var expr: String?
        var anchor: String? = nil
        var every: String? = nil
        var from: String? = nil
        var until: String? = nil
        var zone = "Europe/Berlin"
        var after: String
        var expected: [String]
        var testDescription: String { name }
    }

    static let table: [Row] = [
        // The issue's examples.
        Row(
            name: "'Mon 06:30' --every 2w --from 2026-11-23 rings every other Monday", expr: "Mon 06:30", every: "2w",
            from: "2026-11-23", after: "2026-11-20T00:00:00Z",
            expected: ["2026-11-23T05:30:00Z", "2026-12-07T05:30:00Z", "2026-12-21T05:30:00Z", "2027-01-04T05:30:00Z"]),
        Row(
            name: "06:00 --every 3d --from 2026-11-23 rings every third day", expr: "06:00", every: "3d",
            from: "2026-11-23",
            after: "2026-11-01T00:00:00Z",
            expected: ["2026-11-23T05:00:00Z", "2026-11-26T05:00:00Z", "2026-11-29T05:00:00Z", "2026-12-02T05:00:00Z"]),
        Row(
            name: "--every 90m repeats an instant exactly", expr: nil, anchor: "2026-11-23T08:00:00+01:00",
            every: "90m",
            after: "2026-11-23T07:00:00Z",
            expected: ["2026-11-23T08:30:00Z", "2026-11-23T10:00:00Z", "2026-11-23T11:30:00Z"]),
        // Weeks are blocks of seven days from `from`: custody weeks.
        Row(
            name: "Mon..Fri --every 2w rings the whole first week of every two", expr: "Mon..Fri 06:30", every: "2w",
            from: "2026-11-23", after: "2026-11-22T00:00:00Z",
            expected: [
                "2026-11-23T05:30:00Z", "2026-11-24T05:30:00Z", "2026-11-25T05:30:00Z", "2026-11-26T05:30:00Z",
                "2026-11-27T05:30:00Z", "2026-12-07T05:30:00Z",
            ]),
        Row(
            name: "a from on another weekday starts the week there", expr: "Mon 06:30", every: "2w", from: "2026-11-25",
            after: "2026-11-20T00:00:00Z", expected: ["2026-11-30T05:30:00Z", "2026-12-14T05:30:00Z"]),
        Row(
            name: "weeks of an every-day time: every 14 days", expr: "07:00", every: "2w", from: "2026-11-23",
            zone: "UTC",
            after: "2026-11-20T00:00:00Z",
            expected: ["2026-11-23T07:00:00Z", "2026-12-07T07:00:00Z", "2026-12-21T07:00:00Z"]),
        Row(
            name: "weekdays --every 1w is every week's weekdays", expr: "weekdays 07:00", every: "1w",
            from: "2026-11-25",
            zone: "UTC", after: "2026-11-20T00:00:00Z",
            expected: ["2026-11-25T07:00:00Z", "2026-11-26T07:00:00Z", "2026-11-27T07:00:00Z", "2026-11-30T07:00:00Z"]),
        Row(
            name: "14d counts days, not weeks: only the day itself", expr: "Mon..Fri 06:30", every: "14d",
            from: "2026-11-23",
            after: "2026-11-20T00:00:00Z",
            expected: ["2026-11-23T05:30:00Z", "2026-12-07T05:30:00Z", "2026-12-21T05:30:00Z"]),
        // DST days: calendar days hold the wall clock, exact intervals do not.
        Row(
            name: "every 3d at 02:30 in New York: spring-forward day rings at 03:30 EDT", expr: "02:30", every: "3d",
            from: "2026-03-05", zone: "America/New_York", after: "2026-03-01T00:00:00Z",
            expected: ["2026-03-05T07:30:00Z", "2026-03-08T07:30:00Z", "2026-03-11T06:30:00Z"]),
        Row(
            name: "every 1w holds 07:00 across Berlin's fall-back", expr: "07:00", every: "1w", from: "2026-10-18",
            after: "2026-10-01T00:00:00Z",
            expected: ["2026-10-18T05:00:00Z", "2026-10-25T06:00:00Z", "2026-11-01T06:00:00Z"]),
        Row(
            name: "every 168h is exact across the fall-back: 06:00 on the wall", expr: nil,
            anchor: "2026-10-18T07:00:00+02:00",
            every: "168h", after: "2026-10-01T00:00:00Z", expected: ["2026-10-18T05:00:00Z", "2026-10-25T05:00:00Z"]),
        Row(
            name: "every 90m across Berlin's spring-forward: exact, 04:00 CEST follows 01:30 CET", expr: nil,
            anchor: "2026-03-29T00:00:00+01:00", every: "90m", after: "2026-03-28T22:00:00Z",
            expected: ["2026-03-28T23:00:00Z", "2026-03-29T00:30:00Z", "2026-03-29T02:00:00Z"]),
        Row(
            name: "every 2d at 02:15 in Lord Howe's 30-minute gap rings at 02:45", expr: "02:15", every: "2d",
            from: "2026-10-02",
            zone: "Australia/Lord_Howe", after: "2026-10-01T00:00:00Z",
            expected: ["2026-10-01T15:45:00Z", "2026-10-03T15:45:00Z", "2026-10-05T15:15:00Z"]),
        // Month ends.
        Row(
            name: "every 2d over the end of January", expr: "07:00", every: "2d", from: "2026-01-29", zone: "UTC",
            after: "2026-01-01T00:00:00Z",
            expected: ["2026-01-29T07:00:00Z", "2026-01-31T07:00:00Z", "2026-02-02T07:00:00Z"]),
        Row(
            name: "*-*-31 with every 1d: only months with 31 days", expr: "*-*-31 07:00", every: "1d",
            from: "2026-01-01",
            zone: "UTC", after: "2026-01-01T00:00:00Z",
            expected: ["2026-01-31T07:00:00Z", "2026-03-31T07:00:00Z", "2026-05-31T07:00:00Z"]),
        Row(
            name: "until the last of April, a date included whole", expr: "*-*-30,31 23:59:59", until: "2026-04-30",
            zone: "UTC",
            after: "2026-03-01T00:00:00Z",
            expected: ["2026-03-30T23:59:59Z", "2026-03-31T23:59:59Z", "2026-04-30T23:59:59Z"]),
        // Leap years and the last day of February.
        Row(
            name: "every 1d through a leap February: the 29th rings", expr: "07:00", every: "1d", from: "2028-02-28",
            until: "2028-03-01", zone: "UTC", after: "2028-02-01T00:00:00Z",
            expected: ["2028-02-28T07:00:00Z", "2028-02-29T07:00:00Z", "2028-03-01T07:00:00Z"]),
        Row(
            name: "every 1d through a common February: the 28th, then March", expr: "07:00", every: "1d",
            from: "2027-02-27",
            until: "2027-03-01", zone: "UTC", after: "2027-02-01T00:00:00Z",
            expected: ["2027-02-27T07:00:00Z", "2027-02-28T07:00:00Z", "2027-03-01T07:00:00Z"]),
        Row(
            name: "2100 is no leap year", expr: "07:00", every: "1d", from: "2100-02-28", zone: "UTC",
            after: "2100-01-01T00:00:00Z",
            expected: ["2100-02-28T07:00:00Z", "2100-03-01T07:00:00Z"]),
        Row(
            name: "every 1w from the 29th of a leap February", expr: "07:00", every: "1w", from: "2028-02-29",
            zone: "UTC",
            after: "2028-01-01T00:00:00Z", expected: ["2028-02-29T07:00:00Z", "2028-03-07T07:00:00Z"]),
        Row(
            name: "until the last day of February: its last second is in", expr: "23:59:59", from: "2027-02-27",
            until: "2027-02-28",
            zone: "UTC", after: "2027-01-01T00:00:00Z", expected: ["2027-02-27T23:59:59Z", "2027-02-28T23:59:59Z"]),
        Row(
            name: "*-02-29 every 1d: leap years only", expr: "*-02-29 07:00", every: "1d", from: "2026-01-01",
            zone: "UTC",
            after: "2026-01-01T00:00:00Z", expected: ["2028-02-29T07:00:00Z", "2032-02-29T07:00:00Z"]),
        // from and until in their forms.
        Row(
            name: "from a local time: the occurrence at it is in", expr: "*:00/30", from: "2026-11-23T06:30",
            zone: "UTC",
            after: "2026-11-23T00:00:00Z", expected: ["2026-11-23T06:30:00Z", "2026-11-23T07:00:00Z"]),
        Row(
            name: "until a local time: the occurrence at it is in, none after", expr: "*:00/30",
            from: "2026-11-23T06:30",
            until: "2026-11-23T07:30", zone: "UTC", after: "2026-11-23T00:00:00Z",
            expected: ["2026-11-23T06:30:00Z", "2026-11-23T07:00:00Z", "2026-11-23T07:30:00Z"]),
        Row(
            name: "from and until as RFC 3339 instants", expr: "*:00/30", from: "2026-11-23T06:45:00+00:00",
            until: "2026-11-23T08:00:00Z", zone: "UTC", after: "2026-11-23T00:00:00Z",
            expected: ["2026-11-23T07:00:00Z", "2026-11-23T07:30:00Z", "2026-11-23T08:00:00Z"]),
        Row(
            name: "a pinned zone reads from in its own wall clock", expr: "07:00 Asia/Tokyo", every: "2d",
            from: "2026-11-23",
            zone: "America/New_York", after: "2026-11-20T00:00:00Z",
            expected: ["2026-11-22T22:00:00Z", "2026-11-24T22:00:00Z"]),
        Row(
            name: "an exact interval with until ends", expr: nil, anchor: "2026-11-23T08:00:00Z", every: "1h",
            until: "2026-11-23T10:00:00Z", zone: "UTC", after: "2026-11-23T00:00:00Z",
            expected: ["2026-11-23T08:00:00Z", "2026-11-23T09:00:00Z", "2026-11-23T10:00:00Z"]),
    ]

    @Test(arguments: table)
    func ringsAsTheTableSays(row: Row) throws {
        let a = try Self.rules(row.expr, at: row.anchor, every: row.every, from: row.from, until: row.until)
        let got = Self.rings(a, after: row.after, zone: row.zone, count: row.expected.count + 1)
        let want = row.expected.map { at($0) }
        #expect(Array(got.prefix(row.expected.count)) == want, "\(got.map { RFC3339.format($0, in: .utc) })")
        if row.until != nil {
            #expect(got.count == want.count, "nothing after until: \(got.map { RFC3339.format($0, in: .utc) })")
        }
    }

    /// Every search after any instant between two rings finds the later one: the property the
    /// engine's memo and its incremental path rely on (and strictly increasing rings).
    @Test(arguments: [0, 3, 6, 7, 10, 13, 16])
    func aSearchFromBetweenTwoRingsFindsTheLater(index: Int) throws {
        let row = Self.table[index]
        let a = try Self.rules(row.expr, at: row.anchor, every: row.every, from: row.from, until: row.until)
        let rings = Self.rings(a, after: row.after, zone: row.zone, count: 4)
        for (x, y) in zip(rings, rings.dropFirst()) {
            #expect(x < y)
            for f in [0.0, 0.25, 0.5, 0.99] {
                let probe = x.addingTimeInterval(y.timeIntervalSince(x) * f)
                #expect(a.nextRing(after: probe, systemZone: zone(row.zone)) == y)
            }
        }
    }

    /// The shortcut the day cycles and holiday jumps take (the offset at the instant before,
    /// when no transition lies in between) agrees with the general wall-to-instant search.
    @Test func theMidnightShortcutAgreesWithTheGeneralSearch() throws {
        var rng = SeededRandom(seed: 12)
        for name in [
            "America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "Pacific/Apia", "Pacific/Chatham", "UTC",
            "America/St_Johns",
        ] {
            let tz = try Zones.zone(named: name)
            for _ in 0..<3000 {
                let t = Int64.random(in: 1_262_304_000...2_240_524_800, using: &rng)  // 2010...2040
                let date = Date(timeIntervalSince1970: TimeInterval(t))
                let c = Zones.civil(at: date, in: tz)
                #expect(Alarm.localDay(date, tz) == CivilTime.days(year: c.year, month: c.month, day: c.day))
                let local = (Alarm.localDay(date, tz) + Int64.random(in: 1...15, using: &rng)) * 86400
                #expect(
                    Alarm.instantSeconds(forLocal: local, in: tz, after: t)
                        == Zones.instantSeconds(forLocal: local, in: tz), "\(name) \(t)")
                let wall = local + Int64.random(in: 0..<86400, using: &rng)
                #expect(
                    Alarm.instantSeconds(forLocal: wall, in: tz) == Zones.instantSeconds(forLocal: wall, in: tz),
                    "\(name) \(wall)")
            }
        }
    }

    @Test func intervalsParseAndPrintInNormalForm() throws {
        let cases: [(String, RepeatInterval, String)] = [
            ("2w", .weeks(2), "2w"), ("3d", .days(3), "3d"), ("14d", .days(14), "14d"), ("1w3d", .days(10), "10d"),
            ("90m", .seconds(5400), "90m"), ("1h30m", .seconds(5400), "90m"), ("1h 30min", .seconds(5400), "90m"),
            ("36h", .seconds(129_600), "36h"), ("1d12h", .seconds(129_600), "36h"), ("24h", .seconds(86400), "24h"),
            ("45s", .seconds(45), "45s"), ("1.5h", .seconds(5400), "90m"), ("2W", .weeks(2), "2w"),
            ("7d", .days(7), "7d"),
            ("1w", .weeks(1), "1w"), ("3660d", .days(3660), "3660d"), ("60m", .seconds(3600), "1h"),
        ]
        for (text, value, normal) in cases {
            #expect(try RepeatInterval.parse(text) == value, "\(text)")
            #expect(value.description == normal)
            #expect(try RepeatInterval.parse(normal) == value, "\(normal) reads back")
        }
        for bad in ["", "2", "0d", "1.5d", "2x", "w", "0.5s", "4000d", "-1d", "523w", "2w3", "d2"] {
            #expect(throws: AlarmError.self, "\(bad)") { try RepeatInterval.parse(bad) }
        }
        #expect("\((try? RepeatInterval.parse("1.5d")).map { "\($0)" } ?? "refused")" == "refused")
        do { _ = try RepeatInterval.parse("1.5d") } catch { #expect("\(error)".contains("36h")) }
    }

    @Test func boundsParseAndPrint() throws {
        let cases: [(String, String)] = [
            ("2026-11-23", "2026-11-23"), ("2026-11-23T06:30", "2026-11-23T06:30:00"),
            ("2026-11-23 06:30:15", "2026-11-23T06:30:15"),
            ("2026-11-23T06:30:00+01:00", "2026-11-23T05:30:00+00:00"),
            ("2026-11-23T05:30:00Z", "2026-11-23T05:30:00+00:00"),
            ("2028-02-29", "2028-02-29"),
        ]
        for (text, normal) in cases {
            let b = try ScheduleBound.parse(text)
            #expect(b.description == normal, "\(text)")
            #expect(try ScheduleBound.parse(normal) == b)
        }
        for bad in [
            "2027-02-29", "2026-13-01", "tomorrow", "2026-11-23T25:00", "2026-11-23T06:30+5", "1969-12-31",
            "2026-11-23x",
        ] {
            #expect(throws: AlarmError.self, "\(bad)") { try ScheduleBound.parse(bad) }
        }
    }

    // MARK: pauses

    @Test func aPauseUntilADateCoversTheDaysBeforeItsMidnight() throws {
        var a = try Self.rules("06:30", every: "1d", from: "2026-11-23")
        a.pause = .until(try ScheduleBound.parse("2026-12-01"))
        let berlin = zone("Europe/Berlin")
        #expect(a.fate(of: at("2026-11-30T05:30:00Z"), systemZone: berlin, holidays: .empty) == .paused)
        #expect(a.fate(of: at("2026-12-01T05:30:00Z"), systemZone: berlin, holidays: .empty) == .rings)
        #expect(
            a.nextSounding(after: at("2026-11-23T00:00:00Z"), systemZone: berlin, holidays: .empty)
                == at("2026-12-01T05:30:00Z"))
        #expect(
            a.nextRing(after: at("2026-11-23T00:00:00Z"), systemZone: berlin) == at("2026-11-23T05:30:00Z"),
            "still an occurrence")
        a.pause = .indefinitely
        #expect(a.nextSounding(after: at("2026-11-23T00:00:00Z"), systemZone: berlin, holidays: .empty) == nil)
        #expect(a.pauseReason(systemZone: berlin) == "paused until alarm resume")
    }

    @Test func aPauseOfAnOftenRepeatingAlarmIsJumpedOverWhole() throws {
        var a = try Self.rules(nil, at: "2026-01-01T00:00:00Z", every: "1m")
        a.pause = .until(.instant(at("2026-03-01T00:00:30Z")))
        var calls = 0
        let t = a.nextSounding(after: at("2026-01-02T00:00:00Z"), systemZone: .utc, holidays: .empty) { x in
            calls += 1
            return a.nextRing(after: x, systemZone: .utc)
        }
        #expect(t == at("2026-03-01T00:01:00Z"))
        #expect(calls == 2)
    }

    @Test func holidaysPassOverOneDayAtATime() throws {
        var a = try Self.rules("Mon..Fri 06:30")
        a.skipHolidays = true
        let h = try HolidayCalendar.parse("2026-12-24..2026-12-25 Christmas\n2026-12-28 Extra day\n")
        let berlin = zone("Europe/Berlin")
        #expect(a.fate(of: at("2026-12-24T05:30:00Z"), systemZone: berlin, holidays: h) == .holiday("Christmas"))
        #expect(
            a.nextSounding(after: at("2026-12-23T06:00:00Z"), systemZone: berlin, holidays: h)
                == at("2026-12-29T05:30:00Z"))
        a.skipHolidays = false
        #expect(
            a.nextSounding(after: at("2026-12-23T06:00:00Z"), systemZone: berlin, holidays: h)
                == at("2026-12-24T05:30:00Z"))
        // A pause comes first.
        a.skipHolidays = true
        a.pause = .indefinitely
        #expect(a.fate(of: at("2026-12-24T05:30:00Z"), systemZone: berlin, holidays: h) == .paused)
    }

    @Test func aHolidayIsTheDateInTheAlarmsZone() throws {
        var a = try Self.rules("23:30 America/New_York")
        a.skipHolidays = true
        let h = try HolidayCalendar.parse("2026-12-25 Christmas")
        // 23:30 on the 25th in New York is the 26th in UTC: still Christmas for this alarm.
        #expect(a.fate(of: at("2026-12-26T04:30:00Z"), systemZone: .utc, holidays: h) == .holiday("Christmas"))
        #expect(a.fate(of: at("2026-12-25T04:30:00Z"), systemZone: .utc, holidays: h) == .rings)
    }

    @Test func rulesThatDoNotFitTheTriggerAreRefused() throws {
        #expect(Alarm.whyRulesDoNotFit(trigger: .instant(at("2026-01-01T00:00:00Z")), every: .days(2)) != nil)
        #expect(Alarm.whyRulesDoNotFit(trigger: .calendar(try CalendarExpression("07:00")), every: .seconds(60)) != nil)
        #expect(Alarm.whyRulesDoNotFit(trigger: .calendar(try CalendarExpression("07:00")), every: .weeks(2)) == nil)
        let doc = #"[{"id": "x", "at": "2026-01-01T00:00:00Z", "every": "2d"}]"#
        #expect(throws: AlarmListProblem.self) { try AlarmListReader.decode(Array(doc.utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([Alarm].self, from: Data(doc.utf8)) }
    }

    @Test func anInstantWithAnIntervalRingsMoreThanOnce() throws {
        let a = try Self.rules(nil, at: "2026-01-01T00:00:00Z", every: "1h")
        #expect(!a.ringsOnce)
        #expect(try Self.rules(nil, at: "2026-01-01T00:00:00Z").ringsOnce)
        #expect(a.mode == .absolute)
    }
}
