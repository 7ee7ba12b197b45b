import Foundation
import Testing

@testable import AlarmCore

@Suite("Expressions: grammar, normal form, refusals")
struct ExpressionTests {
    /// Input and its normal form: systemd's normalized form (SystemdCalendarTests checks these
    /// against systemd-analyze too, where systemd takes the input).
    static let forms: [(String, String)] = [
        ("07:00", "*-*-* 07:00:00"),
        ("7:5", "*-*-* 07:05:00"),
        ("daily 06:45", "*-*-* 06:45:00"),
        ("weekdays 06:30", "Mon..Fri *-*-* 06:30:00"),
        ("weekends 09:00", "Sat,Sun *-*-* 09:00:00"),
        ("Mon..Fri 06:30", "Mon..Fri *-*-* 06:30:00"),
        ("mon..fri 06:30", "Mon..Fri *-*-* 06:30:00"),
        ("Mon-Fri 06:30", "Mon..Fri *-*-* 06:30:00"),
        ("MONDAY,wednesday,Fri 07:15", "Mon,Wed,Fri *-*-* 07:15:00"),
        ("Sat,Sun 09:00", "Sat,Sun *-*-* 09:00:00"),
        ("Wed, 17:48", "Wed *-*-* 17:48:00"),
        ("Fri..Mon 10:00", "Mon,Fri..Sun *-*-* 10:00:00"),
        ("Mon..Sun 07:00", "*-*-* 07:00:00"),
        ("*-12-25 08:00", "*-12-25 08:00:00"),
        ("12-25 08:00", "*-12-25 08:00:00"),
        ("2026-12-24 07:00", "2026-12-24 07:00:00"),
        ("2026-12-24 07:00:30", "2026-12-24 07:00:30"),
        ("26-12-24 07:00", "2026-12-24 07:00:00"),
        ("*-*-* *:0/15", "*-*-* *:00/15:00"),
        ("*/15:00", "*-*-* 00/15:00:00"),
        ("*:*/20", "*-*-* *:00/20:00"),
        ("*:*:*", "*-*-* *:*:*"),
        ("00:00:0/1", "*-*-* 00:00:*"),
        ("8..10:00", "*-*-* 08..10:00:00"),
        ("1,2,3,7:00", "*-*-* 01,02,03,07:00:00"),
        ("3,1,2,2:00", "*-*-* 01,02,03:00:00"),
        ("5..5:00", "*-*-* 05:00:00"),
        ("2..7/2:00", "*-*-* 02..06/2:00:00"),
        ("Mon *-*-1..7 9:00", "Mon *-*-01..07 09:00:00"),
        ("*-*-1/2 06:00", "*-*-01/2 06:00:00"),
        ("*-1..12/3-1 06:00", "*-01..10/3-01 06:00:00"),
        ("2027..2029,2031-01-01 00:00", "2027..2029,2031-01-01 00:00:00"),
        ("06:30 europe/berlin", "*-*-* 06:30:00 Europe/Berlin"),
        ("Mon..Fri 06:30 UTC", "Mon..Fri *-*-* 06:30:00 UTC"),
        ("  daily   07:00   America/New_York ", "*-*-* 07:00:00 America/New_York"),
        ("*-02-29 07:00", "*-02-29 07:00:00"),
        // A date without a time is midnight; weekdays alone too.
        ("2026-12-24", "2026-12-24 00:00:00"),
        ("12-24", "*-12-24 00:00:00"),
        ("*-*-*", "*-*-* 00:00:00"),
        ("Monday", "Mon *-*-* 00:00:00"),
        ("Mon UTC", "Mon *-*-* 00:00:00 UTC"),
        ("weekdays", "Mon..Fri *-*-* 00:00:00"),
        // systemd's shortcuts.
        ("minutely", "*-*-* *:*:00"),
        ("hourly", "*-*-* *:00:00"),
        ("daily", "*-*-* 00:00:00"),
        ("weekly", "Mon *-*-* 00:00:00"),
        ("monthly", "*-*-01 00:00:00"),
        ("quarterly", "*-01,04,07,10-01 00:00:00"),
        ("semiannually", "*-01,07-01 00:00:00"),
        ("semi-annually", "*-01,07-01 00:00:00"),
        ("yearly", "*-01-01 00:00:00"),
        ("annually", "*-01-01 00:00:00"),
        ("Hourly Asia/Tokyo", "*-*-* *:00:00 Asia/Tokyo"),
        // Days counted from the month's end.
        ("*-*~01 09:00", "*-*~01 09:00:00"),
        ("*-*~1", "*-*~01 00:00:00"),
        ("Mon *-05~07/1", "Mon *-05~07/1 00:00:00"),
        ("*-02~01 07:00", "*-02~01 07:00:00"),
        ("2026-02~1..3 07:00", "2026-02~01..03 07:00:00"),
        ("*-*~05,3", "*-*~03,05 00:00:00"),
        ("*-*~* 07:00", "*-*-* 07:00:00"),
    ]

    @Test("every form parses to its normal form", arguments: forms.map { $0.0 })
    func normalForm(_ input: String) throws {
        let expected = Self.forms.first { $0.0 == input }!.1
        #expect(try CalendarExpression(input).description == expected)
    }

    @Test("parse, print, parse round-trips to the same schedule", arguments: forms.map { $0.0 })
    func roundTrip(_ input: String) throws {
        let once = try CalendarExpression(input)
        let twice = try CalendarExpression(once.description)
        #expect(once == twice)
        #expect(twice.description == once.description)
    }

    /// Issue #29: a store's expressions, normal forms, are read without the general parser. What
    /// that reading takes, it reads as the general parser does; what it leaves (nil), the general
    /// parser reads or refuses. Normal forms of generated expressions, and each one changed.
    @Test("a normal form read directly is what the general parser reads")
    func normalFormReadDirectly() throws {
        var generator = CalendarGenerator(seed: 29)
        var rng = SeededRandom(seed: 29)
        let alphabet = Array("*-~:., 0123456789MTWFSmonuedhriatAB".utf8)
        var (taken, left) = (0, 0)
        for _ in 0..<4000 {
            guard let e = try? ExpressionParser(generator.expression(zones: ["UTC"])).parse() else { continue }
            let text = Array(e.print(withZone: false).utf8)
            var variants = [text, Array(text.dropLast()), text + [UInt8(ascii: " ")]]
            for _ in 0..<4 {
                var changed = text
                changed[Int.random(in: 0..<changed.count, using: &rng)] = alphabet.randomElement(using: &rng)!
                variants.append(changed)
            }
            for v in variants.map({ String(decoding: $0, as: UTF8.self) }) {
                guard let direct = ExpressionParser.normalForm(v) else {
                    left += 1
                    continue
                }
                taken += 1
                #expect(direct == (try? ExpressionParser(v).parse()), "\(v)")
            }
        }
        // And every set of weekdays with dates and times a store holds, some never matching.
        for bits in 1..<128 as Range<UInt64> {
            let days = CalendarExpression.printWeekdays(ValueSet((0..<7).filter { bits & (1 << $0) != 0 }))
            for date in ["*-*-*", "*-12-25", "*-02-29", "*-*~01", "*-*~28", "*-*~29", "2027-*-13", "*-02-30"] {
                for time in ["06:30:00", "*:00:00", "23:59:59", "24:00:00", "07:*:*"] {
                    let v = "\(days) \(date) \(time)"
                    let direct = ExpressionParser.normalForm(v)
                    if direct != nil { taken += 1 }
                    #expect(direct == nil || direct == (try? ExpressionParser(v).parse()), "\(v)")
                }
            }
        }
        #expect(taken > 4000 && left > 15000, "taken \(taken), left \(left)")
    }

    /// Input, and a part of the message that says what is wrong.
    static let refusals: [(String, String)] = [
        ("", "empty"),
        ("   ", "empty"),
        ("*-02-30 07:00", "February has no day 30"),
        ("*-04-31 07:00", "April has no day 31"),
        ("*-02,04-31 07:00", "February, April have no day 31"),
        ("Mon 2026-12-25 07:00", "never matches"),
        ("2026-02-29 07:00", "never matches"),
        ("25:00", "hour 25 is out of range 0..23"),
        ("07:60", "minute 60 is out of range 0..59"),
        ("07:00:61", "second 61 is out of range"),
        ("7:0x", "minute '0x' is not a number"),
        ("07-00", "day 0 is out of range 1..31"),
        ("Mnday 07:00", "unknown weekday 'Mnday'"),
        ("Tues 07:00", "unknown weekday 'Tues'"),
        ("Mondays", "unknown weekday 'Mondays'"),
        ("Mon..Frx 07:00", "unknown weekday 'Frx'"),
        ("Mon.. 07:00", "weekday is missing"),
        ("Mon..Wed..Fri 07:00", "a weekday range is NAME..NAME"),
        ("Mon,,Tue 07:00", "weekday is missing"),
        ("Mon Tue 07:00", "weekdays are one word"),
        ("07:00 Mars/Olympus", "unknown time zone 'Mars/Olympus'"),
        ("07:00 EST5EDTX", "unknown time zone"),
        ("2026-13-01 07:00", "month 13 is out of range 1..12"),
        ("*-*-32 07:00", "day 32 is out of range 1..31"),
        ("1969-01-01 07:00", "year 1969 is out of range"),
        ("2200-01-01 07:00", "year 2200 is out of range"),
        ("07:00 UTC extra", "unexpected 'extra' after the zone"),
        ("07:00 2026-12-25", "unexpected '2026-12-25' after the time"),
        ("*-*-* 7", "expected a time HOUR:MINUTE[:SECOND] after the date"),
        ("7", "expected a date [YEAR-]MONTH-DAY or a time"),
        ("10..8:00", "runs backwards"),
        ("00:00:05..05", "holds one second"),
        ("0/0:00", "step '0'"),
        ("*:0/x", "step 'x'"),
        ("1,,2:00", "empty item"),
        ("daily 2026-01-01 07:00", "takes a time only"),
        ("hourly 07:00", "'hourly' stands alone"),
        ("weekly Mon", "'weekly' stands alone (it is 'Mon *-*-* 00:00:00'); only a zone may follow it"),
        ("07:00:00:00", "HOUR:MINUTE[:SECOND]"),
        ("1-2-3-4 07:00", "[YEAR-]MONTH-DAY"),
        ("Mon- 07:00", "weekday is missing"),
        ("-5:00", "not a number"),
        // What systemd refuses (issue #12).
        ("20/4:00", "the hour repetition '20/4' never repeats"),
        ("00:00/60", "the minute step 60 in '0/60' is too large: at most 59"),
        ("1,*:00", "'*' cannot be part of a list"),
        ("*,5:00", "'*' cannot be part of a list"),
        ("*-*~29", "day counted from the month's end 29 is out of range 1..28"),
        ("*-*~5/5", "'~5/5' never repeats"),
        ("*-*~01,26", "systemd allows up to 28 for the smallest item"),
        ("2016~11-22", "'~' goes between the month and the day"),
        ("*-*-*~1", "[YEAR-]MONTH-DAY"),
        // Accepted by systemd, refused by us with a reason.
        ("00:00:01.5", "fractional seconds ('01.5') are not supported"),
        ("*-*-* 07:00:00/0.5", "fractional seconds"),
        ("@1767225600", "'@' timestamps are not supported"),
    ]

    @Test("refusals say what is wrong", arguments: refusals.map { $0.0 })
    func refused(_ input: String) throws {
        let fragment = Self.refusals.first { $0.0 == input }!.1
        do {
            let e = try CalendarExpression(input)
            Issue.record("'\(input)' parsed as '\(e)' but must be refused")
        } catch let error as ExpressionError {
            #expect(error.description.contains(fragment), "\(error.description)")
            #expect(error.description.contains("'\(input)'"))
        }
    }

    @Test("errors point at the column of the bad component")
    func column() throws {
        do {
            _ = try CalendarExpression("Mon 07:6x")
            Issue.record("must be refused")
        } catch let error as ExpressionError {
            #expect(error.column == 8)
        }
        do {
            _ = try CalendarExpression("Mon..Fri 06:30 Nowhere/City")
            Issue.record("must be refused")
        } catch let error as ExpressionError {
            #expect(error.column == 16)
        }
    }

    @Test("zone names are matched case-insensitively and printed canonically")
    func zones() throws {
        #expect(try Zones.canonicalName("europe/berlin") == "Europe/Berlin")
        #expect(try Zones.canonicalName("utc") == "UTC")
        #expect(throws: ZoneError.unknown("Europe/Atlantis")) { try Zones.zone(named: "Europe/Atlantis") }
    }
}

@Suite("Civil time arithmetic")
struct CivilTimeTests {
    @Test("days round-trip for every day from 1900 to 2400")
    func daysRoundTrip() {
        var expected = CivilTime.days(year: 1900, month: 1, day: 1)
        for y in 1900...2400 {
            for m in 1...12 {
                for d in 1...CivilTime.daysIn(month: m, year: y) {
                    let n = CivilTime.days(year: y, month: m, day: d)
                    #expect(n == expected)
                    let back = CivilTime.civil(fromDays: n)
                    #expect(back == (y, m, d))
                    expected += 1
                }
            }
        }
    }

    @Test("weekdays: 1970-01-01 was a Thursday, 2026-11-22 a Sunday")
    func weekday() {
        #expect(CivilTime(year: 1970, month: 1, day: 1).weekday == 3)
        #expect(CivilTime(year: 2026, month: 11, day: 22).weekday == 6)
        #expect(CivilTime(year: 2000, month: 2, day: 29).weekday == 1)
    }
}

@Suite("Durations and RFC 3339")
struct FormatTests {
    @Test("durations as users type them")
    func durations() throws {
        #expect(try Durations.parse("90s") == 90)
        #expect(try Durations.parse("9m") == 540)
        #expect(try Durations.parse("1h30m") == 5400)
        #expect(try Durations.parse("1h 30m") == 5400)
        #expect(try Durations.parse("2d") == 172_800)
        #expect(throws: AlarmError.self) { try Durations.parse("5") }
        #expect(throws: AlarmError.self) { try Durations.parse("5x") }
        #expect(throws: AlarmError.self) { try Durations.parse("0s") }
        #expect(throws: AlarmError.self) { try Durations.parse("") }
        #expect(Durations.format(5400) == "1h30m")
        #expect(Durations.spoken(7 * 3600 + 12 * 60) == "7 h 12 min")
        #expect(Durations.spoken(23 * 3600) == "23 h")
        #expect(Durations.spoken(23 * 3600 - 30) == "23 h")
        #expect(Durations.spoken(45 * 60) == "45 min")
        #expect(Durations.spoken(2 * 86400 + 60) == "2 d 1 min")
        #expect(Durations.spoken(0.2) == "1 s")
        #expect(Durations.spoken(0) == "0 s")
        #expect(Durations.spoken(-3) == "0 s")
        // Issue #30: the nearest unit, never up past it. `--in 1m` rings on a whole second, 60 to
        // 61 s after the command; it said "in 2 min".
        #expect(Durations.spoken(59.4) == "59 s")
        #expect(Durations.spoken(59.9) == "59 s")
        #expect(Durations.spoken(45.7) == "45 s")
        #expect(Durations.spoken(60.9) == "1 min")
        #expect(Durations.spoken(120.9) == "2 min")
        #expect(Durations.spoken(89) == "1 min")
        #expect(Durations.spoken(90) == "2 min")
        #expect(Durations.spoken(20 * 60 + 0.7) == "20 min")
        #expect(Durations.spoken(3600 + 29) == "1 h")
        #expect(Durations.spoken(86400 - 20) == "1 d")
    }

    @Test("positions in a recording (alarm sounds cut --from): M:SS, H:MM:SS, seconds")
    func positions() throws {
        #expect(try Durations.position("1:10") == 70)
        #expect(try Durations.position("0:01:10") == 70)
        #expect(try Durations.position("1:02:03") == 3723)
        #expect(try Durations.position("70") == 70)
        #expect(try Durations.position("70.5") == 70.5)
        #expect(try Durations.position("1:10.25") == 70.25)
        #expect(try Durations.position(" 0:00 ") == 0)
        #expect(try Durations.position("12:00") == 720)
        for bad in ["", "1:7", "1:75", "1:60", "1:2:3:4", "a", "-5", "1:-5", ":10", "1:", "1.5:10", "1e3", "١:١٠"] {
            #expect(throws: AlarmError.self, "\(bad)") { try Durations.position(bad) }
        }
    }

    @Test("RFC 3339 parses offsets, Z and fractions, and refuses junk")
    func rfc3339() throws {
        #expect(RFC3339.parse("2026-12-24T07:00:00+01:00")?.timeIntervalSince1970 == 1_798_092_000)
        #expect(RFC3339.parse("2026-12-24T06:00:00Z")?.timeIntervalSince1970 == 1_798_092_000)
        #expect(RFC3339.parse("2026-12-24 06:00:00.250z")?.timeIntervalSince1970 == 1_798_092_000.25)
        #expect(RFC3339.parse("2026-12-24T06:00Z")?.timeIntervalSince1970 == 1_798_092_000)
        for bad in ["2026-12-24", "2026-02-30T00:00:00Z", "2026-12-24T25:00:00Z", "tomorrow", "2026-12-24T06:00:00"] {
            #expect(RFC3339.parse(bad) == nil, "\(bad)")
        }
        let ny = try Zones.zone(named: "America/New_York")
        #expect(RFC3339.format(RFC3339.parse("2026-03-08T07:30:00Z")!, in: ny) == "2026-03-08T03:30:00-04:00")
        #expect(
            RFC3339.format(RFC3339.parse("2026-03-08T07:30:00.123Z")!, in: .utc, milliseconds: true)
                == "2026-03-08T07:30:00.123+00:00")
    }
}

@Suite("Alarm JSON")
struct AlarmJSONTests {
    @Test("an alarm survives encode and decode with its zone mode")
    func roundTrip() throws {
        let alarms = [
            Alarm(
                id: "work", trigger: .calendar(try CalendarExpression("Mon..Fri 06:30")), label: "Work",
                sound: "rooster.caf",
                snooze: 300, volume: 80, fadeIn: 30),
            Alarm(
                id: "berlin", trigger: .calendar(try CalendarExpression("07:00 Europe/Berlin")), once: true,
                skipNext: true),
            Alarm(id: "tea", trigger: .instant(RFC3339.parse("2026-11-22T10:20:00Z")!)),
        ]
        let data = try JSONEncoder().encode(alarms)
        let json = String(decoding: data, as: UTF8.self)
        #expect(json.contains("\"mode\":\"pinned\""))
        #expect(json.contains("\"fade_in\":30"))
        #expect(try JSONDecoder().decode([Alarm].self, from: data) == alarms)
    }

    /// Stores written before issue #12 hold our older normal form, which ran `N/STEP` and ranges
    /// its own way; all of it is systemd syntax, and loads to the same schedule.
    @Test("stores with the normal form printed before systemd's load to the same schedule")
    func oldStores() throws {
        let old: [(String, [String])] = [
            ("Mon..Fri *-*-* 06:30:00", ["2026-11-20T06:30:00+00:00", "2026-11-23T06:30:00+00:00"]),
            ("Mon,Fri..Sun *-*-* 10:00:00", ["2026-11-20T10:00:00+00:00", "2026-11-21T10:00:00+00:00"]),
            ("*-*-* 01..03,07:00:00", ["2026-11-20T01:00:00+00:00", "2026-11-20T02:00:00+00:00"]),
            ("Mon,Wed *-*-* 01/6:00:30", ["2026-11-23T01:00:30+00:00", "2026-11-23T07:00:30+00:00"]),
            ("*-01/3-01 06:00:00", ["2027-01-01T06:00:00+00:00", "2027-04-01T06:00:00+00:00"]),
            ("*-*-* 07:00:00/20", ["2026-11-20T07:00:00+00:00", "2026-11-20T07:00:20+00:00"]),
            ("2027..2029,2031-01-01 00:00:00", ["2027-01-01T00:00:00+00:00", "2028-01-01T00:00:00+00:00"]),
            ("*-*-* *:*:*", ["2026-11-20T00:00:01+00:00", "2026-11-20T00:00:02+00:00"]),
        ]
        let json =
            "["
            + old.enumerated().map { #"{"id":"a\#($0.offset)","expression":"\#($0.element.0)","zone":null}"# }.joined(
                separator: ",") + "]"
        let alarms = try AlarmListReader.decode(Array(json.utf8))
        #expect(alarms.count == old.count)
        for (alarm, (text, rings)) in zip(alarms, old) {
            guard case .calendar(let e) = alarm.trigger else {
                Issue.record("\(text)")
                continue
            }
            #expect(e.description == text, "prints as before")
            let next = Schedule.upcoming(e, after: RFC3339.parse("2026-11-20T00:00:00Z")!, in: .utc, count: 2).map {
                RFC3339.format($0, in: .utc)
            }
            #expect(next == rings, "\(text)")
        }
    }

    @Test("a bad expression in JSON is refused with its message")
    func bad() {
        let json = #"[{"id":"x","expression":"*-02-30 07:00"}]"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([Alarm].self, from: Data(json.utf8)) }
    }

    @Test("ids are what users can type")
    func ids() {
        #expect(throws: Never.self) { try Alarm.validate(id: "work-day_1.b") }
        for bad in ["", ".hidden", "a/b", "a b", String(repeating: "x", count: 65)] {
            #expect(throws: AlarmError.self) { try Alarm.validate(id: bad) }
        }
    }
}
