import Foundation
import Testing

@testable import AlarmCore

/// Issue #12: the holidays file, plain or iCalendar, parsed by a pure parser. iCalendar files
/// come from another program (Python's `icalendar` package, Debian's python3-icalendar, with
/// `dateutil` expanding the rules independently) and from hand-written samples shaped like
/// what calendar apps export.
@Suite struct HolidayCalendarTests {
    static func day(_ text: String) -> CivilTime {
        let p = text.split(separator: "-").map { Int($0)! }
        return CivilTime(year: p[0], month: p[1], day: p[2])
    }

    static func names(_ c: HolidayCalendar, _ days: [String]) -> [String?] { days.map { c.holiday(on: day($0)) } }

    func refusal(_ text: String, fileName: String = "") -> HolidayFileError? {
        do {
            _ = try HolidayCalendar.parse(text, fileName: fileName)
            return nil
        } catch { return error }
    }

    // MARK: plain

    @Test func thePlainFormatHasDatesRangesNamesAndComments() throws {
        let c = try HolidayCalendar.parse(
            """
            # public holidays
            2026-12-25 Christmas Day
            2026-12-26\tBoxing Day   # second day
            2027-01-01
            2026-07-27..2026-07-31 summer week
              2028-02-29 leap day
            2026-12-25 Christmas Day
            2026-12-25 Weihnachten
            """)
        #expect(
            Self.names(
                c, ["2026-12-25", "2026-12-26", "2027-01-01", "2026-07-27", "2026-07-31", "2026-08-01", "2028-02-29"])
                == ["Christmas Day, Weihnachten", "Boxing Day", "", "summer week", "summer week", nil, "leap day"])
        #expect(c.count == 9)
        #expect(try HolidayCalendar.parse("# nothing\n\n").isEmpty)
        // `#` starts a comment after a blank only.
        #expect(
            try HolidayCalendar.parse("2026-12-31..2027-01-01 New Year No#1 # a comment\r\n").holiday(
                on: Self.day("2027-01-01")) == "New Year No#1")
        #expect(
            try HolidayCalendar.parse("2026-12-24 a\r\n2026-12-25 b\r\n").holiday(on: Self.day("2026-12-25")) == "b",
            "CRLF lines")
    }

    @Test func aMalformedPlainFileIsRefusedWithLineAndReason() {
        let cases: [(String, Int, String)] = [
            ("2026-12-25 ok\n2026-02-30 bad", 2, "February 2026 has 28 days"),
            ("\n\n26-12-25 x", 3, "is not a date"),
            ("2026-13-01", 1, "no month 13"),
            ("2026-12-31..2026-12-01 backwards", 1, "ends before it starts"),
            ("2026-12-01..2026-12-03..2026-12-05", 1, "is not a date or a range"),
            ("Christmas 2026-12-25", 1, "is not a date"),
            ("2300-01-01 far", 1, "the year must be within"),
        ]
        for (text, line, reason) in cases {
            let e = refusal(text)
            #expect(e?.line == line, "\(text)")
            #expect(e?.description.contains(reason) == true, "\(e?.description ?? "accepted")")
        }
    }

    // MARK: iCalendar, hand-written like the exports of calendar apps

    /// Folded lines (CRLF and a space), escaped text, a VTIMEZONE, an alarm inside an event,
    /// parameters with quoted colons, yearly rules of each kind, EXDATE, RDATE, a cancelled event.
    static let realWorld = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Example Corp.//Holiday Calendar 1.0//EN\r
        X-WR-CALNAME:Feiertage\r
        BEGIN:VTIMEZONE\r
        TZID:Europe/Berlin\r
        BEGIN:STANDARD\r
        DTSTART:19701025T030000\r
        TZOFFSETFROM:+0200\r
        TZOFFSETTO:+0100\r
        RRULE:FREQ=MONTHLY;BYDAY=-1SU\r
        END:STANDARD\r
        END:VTIMEZONE\r
        BEGIN:VEVENT\r
        UID:christmas@example.com\r
        DTSTAMP:20260101T000000Z\r
        DTSTART;VALUE=DATE:20201225\r
        DTEND;VALUE=DATE:20201227\r
        RRULE:FREQ=YEARLY\r
        SUMMARY;LANGUAGE=de:Weihnachten\\, erster und zweiter Feiertag\\; frei \r
         für alle\r
        TRANSP:TRANSPARENT\r
        BEGIN:VALARM\r
        ACTION:DISPLAY\r
        TRIGGER:-PT15M\r
        DESCRIPTION:not a holiday\r
        END:VALARM\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:thanksgiving@example.com\r
        DTSTART;VALUE=DATE:20221124\r
        RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=4TH;WKST=MO\r
        SUMMARY:Thanksgiving\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:memorial@example.com\r
        DTSTART;VALUE=DATE:20210531\r
        DURATION:P1D\r
        RRULE:FREQ=YEARLY;BYMONTH=5;BYDAY=-1MO;UNTIL=20280101T000000Z\r
        SUMMARY:Memorial Day\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:election@example.com\r
        DTSTART;VALUE=DATE:20241105\r
        RRULE:FREQ=YEARLY;INTERVAL=2;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8\r
        SUMMARY:Election Day\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:leap@example.com\r
        DTSTART;VALUE=DATE:20240229\r
        RRULE:FREQ=YEARLY;COUNT=3\r
        EXDATE;VALUE=DATE:20280229\r
        RDATE;VALUE=DATE:20270301,20270302\r
        SUMMARY:Leap day\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:easter2027@example.com\r
        DTSTART;VALUE=DATE:20270328\r
        DTEND;VALUE=DATE:20270330\r
        SUMMARY;ALTREP="http://example.com/easter:info":Easter\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:cancelled@example.com\r
        DTSTART;VALUE=DATE:20270505\r
        STATUS:CANCELLED\r
        SUMMARY:Cancelled\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    @Test func aCalendarAsAppsExportItIsRead() throws {
        let c = try HolidayCalendar.parse(Self.realWorld, fileName: "/etc/alarm/feiertage.ics")
        let xmas = "Weihnachten, erster und zweiter Feiertag; frei für alle"
        #expect(
            Self.names(c, ["2026-12-25", "2026-12-26", "2026-12-27", "2199-12-26", "2019-12-25"]) == [
                xmas, xmas, nil, xmas, nil,
            ])
        // The fourth Thursday of November, every year from 2022.
        #expect(
            Self.names(c, ["2026-11-26", "2027-11-25", "2028-11-23", "2026-11-19", "2021-11-25"])
                == ["Thanksgiving", "Thanksgiving", "Thanksgiving", nil, nil])
        // The last Monday of May, until 2028.
        #expect(Self.names(c, ["2026-05-25", "2027-05-31", "2028-05-29"]) == ["Memorial Day", "Memorial Day", nil])
        // The Tuesday after the first Monday of November, every other year from 2024.
        #expect(
            Self.names(c, ["2024-11-05", "2026-11-03", "2025-11-04", "2028-11-07"]) == [
                "Election Day", "Election Day", nil, "Election Day",
            ])
        // COUNT=3 from 2024-02-29: 2024, 2028 (excluded), 2032; the RDATEs; never 2036.
        #expect(
            Self.names(c, ["2024-02-29", "2028-02-29", "2032-02-29", "2036-02-29", "2027-03-01", "2027-03-02"])
                == ["Leap day", nil, "Leap day", nil, "Leap day", "Leap day"])
        #expect(
            Self.names(c, ["2027-03-28", "2027-03-29", "2027-03-30", "2027-05-05"]) == ["Easter", "Easter", nil, nil])
    }

    @Test func unixLineEndsAndAByteOrderMarkAreFine() throws {
        let text =
            "\u{FEFF}BEGIN:VCALENDAR\nBEGIN:VEVENT\nDTSTART;VALUE=DATE:20261224\nSUMMARY:Heilig\n Abend\nEND:VEVENT\nEND:VCALENDAR\n"
        #expect(try HolidayCalendar.parse(text).holiday(on: Self.day("2026-12-24")) == "HeiligAbend")
    }

    @Test func aMalformedOrUnsupportedCalendarIsRefusedWithLineAndReason() {
        func ics(_ body: String) -> String { "BEGIN:VCALENDAR\nVERSION:2.0\n" + body + "END:VCALENDAR\n" }
        let cases: [(String, Int, String)] = [
            (ics("BEGIN:VEVENT\nDTSTART:20261224T180000Z\nEND:VEVENT\n"), 4, "has a time of day"),
            (
                ics("BEGIN:VEVENT\nDTSTART;VALUE=DATE:20261224\nRRULE:FREQ=MONTHLY\nEND:VEVENT\n"), 5,
                "FREQ=MONTHLY is not read"
            ),
            (
                ics("BEGIN:VEVENT\nDTSTART;VALUE=DATE:20261224\nRRULE:FREQ=YEARLY;BYSETPOS=1\nEND:VEVENT\n"), 5,
                "part BYSETPOS is not read"
            ),
            (
                ics("BEGIN:VEVENT\nDTSTART;VALUE=DATE:20261224\nRRULE:FREQ=YEARLY;BYDAY=XX\nEND:VEVENT\n"), 5,
                "is not a weekday"
            ),
            (ics("BEGIN:VEVENT\nDTSTART;VALUE=DATE:20260230\nEND:VEVENT\n"), 4, "is not a date of the calendar"),
            (ics("BEGIN:VEVENT\nSUMMARY:x\nEND:VEVENT\n"), 3, "has no DTSTART"),
            (ics("BEGIN:VEVENT\nDTSTART;VALUE=DATE:20261224\nEND:VTODO\n"), 5, "does not close BEGIN:VEVENT of line 3"),
            (
                "BEGIN:VCALENDAR\nBEGIN:VEVENT\nDTSTART;VALUE=DATE:20261224\n", 2,
                "is never closed: the file is cut short"
            ),
            (
                ics("BEGIN:VEVENT\nDTSTART;VALUE=DATE:20261224\nDTEND;VALUE=DATE:20261220\nEND:VEVENT\n"), 5,
                "is before DTSTART"
            ),
            (ics("BEGIN:VEVENT\nthis is not a content line\nEND:VEVENT\n"), 4, "is not an iCalendar content line"),
            ("BEGIN:VEVENT\nEND:VEVENT\n", 1, "starts with BEGIN:VCALENDAR"),
        ]
        for (text, line, reason) in cases {
            let e = refusal(text, fileName: "x.ics")
            #expect(e?.line == line, "\(text.debugDescription): \(e?.description ?? "accepted")")
            #expect(e?.description.contains(reason) == true, "\(e?.description ?? "accepted")")
        }
        // A `.ics` name is read as iCalendar even when the text is not.
        #expect(
            refusal("2026-12-25 Christmas", fileName: "holidays.ics")?.description.contains("BEGIN:VCALENDAR") == true)
    }

    // MARK: made by Python's icalendar, expanded by dateutil

    /// Runs /usr/bin/python3 (Debian's, where python3-icalendar is installed) with `script`.
    static func python(_ script: String, _ args: [String] = []) throws -> String {
        try run("/usr/bin/python3", ["-c", script] + args)
    }

    /// Random yearly rules of the kinds holiday calendars use, written by `icalendar` into one
    /// file, each event's days expanded by `dateutil.rrule` up to 2060: our parser must find
    /// exactly those days with exactly those names.
    @Test(arguments: [1, 2, 3])
    func rulesWrittenByPythonsIcalendarExpandAsDateutilExpandsThem(seed: Int) throws {
        let script = #"""
            import sys, random, json, datetime
            from icalendar import Calendar, Event
            from dateutil.rrule import rrule, YEARLY, MO, TU, WE, TH, FR, SA, SU
            rnd = random.Random(int(sys.argv[1]))
            days = [MO, TU, WE, TH, FR, SA, SU]
            codes = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU']
            cal = Calendar(); cal.add('prodid', '-//alarm tests//holidays//EN'); cal.add('version', '2.0')
            expected = {}
            for n in range(40):
                kind = rnd.randrange(5)
                ical = {'freq': 'yearly'}; du = {}
                interval = rnd.choice([1, 1, 1, 2, 3])
                if interval > 1: ical['interval'] = interval
                month = rnd.randint(1, 12)
                if kind == 1:
                    ical['bymonth'] = month; du['bymonth'] = month
                    o = rnd.choice([1, 2, 3, 4, -1, -2]); w = rnd.randrange(7)
                    ical['byday'] = '%+d%s' % (o, codes[w]) if o < 0 else '%d%s' % (o, codes[w]); du['byweekday'] = days[w](o)
                elif kind == 2:
                    ical['bymonth'] = month; du['bymonth'] = month
                    md = rnd.choice([1, 15, 28, 29, -1, -7] + ([30] if month != 2 else []) + ([31] if month in (1, 3, 5, 7, 8, 10, 12) else []))
                    ical['bymonthday'] = md; du['bymonthday'] = md
                elif kind == 3:
                    ical['bymonth'] = month; du['bymonth'] = month
                    w = rnd.randrange(7); ical['byday'] = codes[w]; du['byweekday'] = days[w]
                    ical['bymonthday'] = [2, 3, 4, 5, 6, 7, 8]; du['bymonthday'] = [2, 3, 4, 5, 6, 7, 8]
                elif kind == 4:
                    o = rnd.choice([1, 3, 5, -1, -2]); w = rnd.randrange(7)  # icalendar 4 writes one-digit ordinals
                    ical['byday'] = '%+d%s' % (o, codes[w]) if o < 0 else '%d%s' % (o, codes[w]); du['byweekday'] = days[w](o)
                end = rnd.randrange(3)
                if end == 1:
                    c = rnd.randint(1, 12); ical['count'] = c; du['count'] = c
                elif end == 2:
                    u = datetime.date(rnd.randint(2028, 2050), rnd.randint(1, 12), rnd.randint(1, 28))
                    ical['until'] = u; du['until'] = datetime.datetime(u.year, u.month, u.day)
                # DTSTART on the rule's own first day, so that RFC 5545 (DTSTART is an instance)
                # and dateutil (only days that match) agree.
                if kind == 0:
                    start = datetime.date(rnd.randint(1960, 2030), month, rnd.randint(1, 28))
                else:
                    probe = datetime.datetime(rnd.randint(1960, 2030), 1, 1)
                    start = rrule(YEARLY, dtstart=probe, **{k: v for k, v in du.items() if k not in ('count', 'until')})[0].date()
                dtstart = datetime.datetime(start.year, start.month, start.day)
                span = rnd.choice([1, 1, 1, 2, 3])
                inst = [d.date() for d in rrule(YEARLY, dtstart=dtstart, interval=interval, **du)
                        if d.year <= 2060] if 'count' in du or 'until' in du else \
                       [d.date() for d in rrule(YEARLY, dtstart=dtstart, interval=interval,
                                                until=datetime.datetime(2060, 12, 31), **du)]
                ex = [d for d in inst if rnd.randrange(8) == 0][:2]
                e = Event()
                e.add('uid', 'rule-%d@test' % n); e.add('summary', 'rule %d' % n)
                e.add('dtstart', start); e.add('dtend', start + datetime.timedelta(days=span))
                e.add('rrule', ical)
                if ex: e.add('exdate', ex)
                cal.add_component(e)
                out = set()
                for d in inst:
                    if d in ex: continue
                    for k in range(span):
                        x = d + datetime.timedelta(days=k)
                        if 1970 <= x.year <= 2060: out.add(x.isoformat())
                expected['rule %d' % n] = sorted(out)
            sys.stdout.write(json.dumps({'ics': cal.to_ical().decode(), 'expected': expected}))
            """#
        let out = try Self.python(script, ["\(seed)"])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any], "\(out)")
        let ics = try #require(doc["ics"] as? String)
        let expected = try #require(doc["expected"] as? [String: [String]])
        #expect(ics.contains("\r\n") && ics.contains("RRULE:FREQ=YEARLY"), "icalendar wrote it")
        let c = try HolidayCalendar.parse(ics, fileName: "python.ics")
        var ours: [String: Set<String>] = [:]
        let last = CivilTime.days(year: 2060, month: 12, day: 31)
        for (d, names) in c.days where d <= last {
            let (y, m, dd) = CivilTime.civil(fromDays: d)
            let iso = CivilTime(year: y, month: m, day: dd).date
            for name in names.split(separator: ",").map({ $0.trimmingBlanks() }) { ours[name, default: []].insert(iso) }
        }
        for (name, days) in expected {
            #expect(
                ours[name] ?? [] == Set(days),
                "\(name): only ours \((ours[name] ?? []).subtracting(days).sorted()), only dateutil's \(Set(days).subtracting(ours[name] ?? []).sorted())"
            )
        }
        #expect(Set(ours.keys).isSubset(of: Set(expected.keys)))
    }

    /// An all-day event list as Python's icalendar writes a public-holiday export: one event per
    /// date, long names folded, commas escaped.
    @Test func aHolidayListWrittenByPythonsIcalendarIsRead() throws {
        let script = #"""
            import datetime, sys
            from icalendar import Calendar, Event
            cal = Calendar(); cal.add('prodid', '-//alarm tests//x//'); cal.add('version', '2.0')
            for i, (d, name) in enumerate([(datetime.date(2026, 12, 24), 'Heiligabend, halber Tag'),
                                           (datetime.date(2026, 12, 25), '1. Weihnachtsfeiertag; ' + 'sehr ' * 20 + 'lang'),
                                           (datetime.date(2027, 1, 1), 'Neujahr')]):
                e = Event(); e.add('uid', '%d@x' % i); e.add('dtstamp', datetime.datetime(2026, 1, 1))
                e.add('dtstart', d); e.add('summary', name); cal.add_component(e)
            sys.stdout.write(cal.to_ical().decode())
            """#
        let ics = try Self.python(script)
        let c = try HolidayCalendar.parse(ics)
        #expect(
            Self.names(c, ["2026-12-24", "2026-12-25", "2027-01-01", "2026-12-26"])
                == [
                    "Heiligabend, halber Tag",
                    "1. Weihnachtsfeiertag; " + String(repeating: "sehr ", count: 20) + "lang", "Neujahr", nil,
                ])
    }
}
