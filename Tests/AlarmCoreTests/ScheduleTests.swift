import Foundation
import Testing

@testable import AlarmCore

/// One schedule case: an expression read in a (system) zone, an explicit "after" instant, and
/// the next rings as RFC 3339 strings with the offset in force in the alarm's zone.
struct ScheduleCase: CustomTestStringConvertible, Sendable {
    var name: String
    var expression: String
    var zone: String
    var after: String
    var expected: [String]
    var testDescription: String { name }
}

func rings(_ c: ScheduleCase) throws -> [String] {
    let expr = try CalendarExpression(c.expression)
    let system = try Zones.zone(named: c.zone)
    let shown = try expr.zone.map { try Zones.zone(named: $0) } ?? system
    let after = try #require(RFC3339.parse(c.after))
    return Schedule.upcoming(expr, after: after, in: system, count: c.expected.count + 1)
        .prefix(c.expected.count).map { RFC3339.format($0, in: shown) }
}

let dstCases: [ScheduleCase] = [
    // New York: spring forward 2026-03-08 02:00 -> 03:00, fall back 2026-11-01 02:00 -> 01:00.
    .init(
        name: "daily 02:30 in New York rings at 03:30 on spring-forward day", expression: "daily 02:30",
        zone: "America/New_York", after: "2026-03-07T12:00:00-05:00",
        expected: ["2026-03-08T03:30:00-04:00", "2026-03-09T02:30:00-04:00"]),
    .init(
        name: "01:30 in New York rings once, at the first occurrence, on fall-back day", expression: "01:30",
        zone: "America/New_York", after: "2026-10-31T12:00:00-04:00",
        expected: ["2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"]),
    .init(
        name: "in the second pass of an overlap the repeated wall time does not ring again", expression: "01:30",
        zone: "America/New_York", after: "2026-11-01T01:10:00-05:00", expected: ["2026-11-02T01:30:00-05:00"]),
    .init(
        name: "every 15 minutes across New York's gap: each instant once, strictly increasing",
        expression: "*:0/15", zone: "America/New_York", after: "2026-03-08T01:40:00-05:00",
        expected: [
            "2026-03-08T01:45:00-05:00", "2026-03-08T03:00:00-04:00", "2026-03-08T03:15:00-04:00",
            "2026-03-08T03:30:00-04:00", "2026-03-08T03:45:00-04:00", "2026-03-08T04:00:00-04:00",
        ]),
    .init(
        name: "every 30 minutes across New York's overlap rings the repeated hour once", expression: "*:0/30",
        zone: "America/New_York", after: "2026-11-01T00:45:00-04:00",
        expected: ["2026-11-01T01:00:00-04:00", "2026-11-01T01:30:00-04:00", "2026-11-01T02:00:00-05:00"]),
    .init(
        name: "asked from inside the gap's shifted hour, the shifted ring is still ahead", expression: "02:30",
        zone: "America/New_York", after: "2026-03-08T03:10:00-04:00",
        expected: ["2026-03-08T03:30:00-04:00", "2026-03-09T02:30:00-04:00"]),
    // London and Dublin (Dublin's winter time is "negative DST" in tzdata): same instants.
    .init(
        name: "London 01:30 on spring-forward day rings at 02:30 BST", expression: "01:30", zone: "Europe/London",
        after: "2026-03-28T12:00:00+00:00", expected: ["2026-03-29T02:30:00+01:00", "2026-03-30T01:30:00+01:00"]),
    .init(
        name: "London 01:30 on fall-back day rings at the first 01:30", expression: "01:30", zone: "Europe/London",
        after: "2026-10-24T12:00:00+01:00", expected: ["2026-10-25T01:30:00+01:00", "2026-10-26T01:30:00+00:00"]),
    .init(
        name: "Dublin (negative DST) 01:30 on spring-forward day rings at 02:30 IST", expression: "01:30",
        zone: "Europe/Dublin", after: "2026-03-28T12:00:00+00:00",
        expected: ["2026-03-29T02:30:00+01:00", "2026-03-30T01:30:00+01:00"]),
    .init(
        name: "Dublin (negative DST) 01:30 on fall-back day rings once", expression: "01:30", zone: "Europe/Dublin",
        after: "2026-10-24T12:00:00+01:00", expected: ["2026-10-25T01:30:00+01:00", "2026-10-26T01:30:00+00:00"]),
    // Lord Howe: a 30-minute DST. Foundation's nextDate skips this wake-up; we must not.
    .init(
        name: "Lord Howe 02:15 in the 30-minute gap rings at 02:45", expression: "02:15",
        zone: "Australia/Lord_Howe", after: "2026-10-03T12:00:00+10:30",
        expected: ["2026-10-04T02:45:00+11:00", "2026-10-05T02:15:00+11:00"]),
    .init(
        name: "Lord Howe 01:45 in the 30-minute overlap rings at the first one", expression: "01:45",
        zone: "Australia/Lord_Howe", after: "2027-04-03T12:00:00+11:00",
        expected: ["2027-04-04T01:45:00+11:00", "2027-04-05T01:45:00+10:30"]),
    // Chatham: +12:45 / +13:45, transitions at 02:45 / 03:45 local.
    .init(
        name: "Chatham 03:00 in the gap rings at 04:00", expression: "03:00", zone: "Pacific/Chatham",
        after: "2026-09-26T12:00:00+12:45", expected: ["2026-09-27T04:00:00+13:45", "2026-09-28T03:00:00+13:45"]),
    .init(
        name: "Chatham 03:00 in the overlap rings once", expression: "03:00", zone: "Pacific/Chatham",
        after: "2026-04-04T12:00:00+13:45", expected: ["2026-04-05T03:00:00+13:45", "2026-04-06T03:00:00+12:45"]),
    // St John's: -03:30 / -02:30.
    .init(
        name: "St John's 02:30 in the gap rings at 03:30 NDT", expression: "02:30", zone: "America/St_Johns",
        after: "2026-03-07T12:00:00-03:30", expected: ["2026-03-08T03:30:00-02:30", "2026-03-09T02:30:00-02:30"]),
    .init(
        name: "St John's 01:30 in the overlap rings at the first one", expression: "01:30", zone: "America/St_Johns",
        after: "2026-10-31T12:00:00-02:30", expected: ["2026-11-01T01:30:00-02:30", "2026-11-02T01:30:00-03:30"]),
    // Kolkata: +05:30, no DST.
    .init(
        name: "Kolkata weekday alarm skips the weekend", expression: "Mon..Fri 06:30", zone: "Asia/Kolkata",
        after: "2026-11-20T00:00:00+05:30",
        expected: ["2026-11-20T06:30:00+05:30", "2026-11-23T06:30:00+05:30", "2026-11-24T06:30:00+05:30"]),
    // Apia skipped 2011-12-30 entirely (-10 -> +14).
    .init(
        name: "Apia daily 07:00 across the skipped day rings once on the 31st", expression: "07:00",
        zone: "Pacific/Apia", after: "2011-12-28T12:00:00-10:00",
        expected: ["2011-12-29T07:00:00-10:00", "2011-12-31T07:00:00+14:00", "2012-01-01T07:00:00+14:00"]),
    .init(
        name: "Apia 2011-12-30 07:00 (a day that never was) still rings", expression: "2011-12-30 07:00",
        zone: "Pacific/Apia", after: "2011-12-01T00:00:00-10:00", expected: ["2011-12-31T07:00:00+14:00"]),
    // Sydney: +10 / +11.
    .init(
        name: "Sydney 02:30 in the gap rings at 03:30", expression: "02:30", zone: "Australia/Sydney",
        after: "2026-10-03T12:00:00+10:00", expected: ["2026-10-04T03:30:00+11:00", "2026-10-05T02:30:00+11:00"]),
    .init(
        name: "Sydney 02:30 in the overlap rings at the first one", expression: "02:30", zone: "Australia/Sydney",
        after: "2026-04-04T12:00:00+11:00", expected: ["2026-04-05T02:30:00+11:00", "2026-04-06T02:30:00+10:00"]),
    // Pinned zones: the system zone does not matter.
    .init(
        name: "a pinned New York alarm gets the gap rule whatever the system zone",
        expression: "02:30 America/New_York",
        zone: "Asia/Tokyo", after: "2026-03-07T12:00:00-05:00",
        expected: ["2026-03-08T03:30:00-04:00", "2026-03-09T02:30:00-04:00"]),
    .init(
        name: "a pinned Berlin alarm read from New York rings at Berlin's 06:30",
        expression: "Mon..Fri 06:30 Europe/Berlin",
        zone: "America/New_York", after: "2026-11-20T00:00:00Z",
        expected: ["2026-11-20T06:30:00+01:00", "2026-11-23T06:30:00+01:00"]),
    .init(
        name: "a pinned Berlin alarm across Berlin's fall-back rings once", expression: "02:30 Europe/Berlin",
        zone: "UTC", after: "2026-10-24T12:00:00Z",
        expected: ["2026-10-25T02:30:00+02:00", "2026-10-26T02:30:00+01:00"]),
]

let calendarCases: [ScheduleCase] = [
    .init(
        name: "leap day alarms ring only in leap years", expression: "*-02-29 07:00", zone: "UTC",
        after: "2026-01-01T00:00:00Z", expected: ["2028-02-29T07:00:00+00:00", "2032-02-29T07:00:00+00:00"]),
    .init(
        name: "the 31st skips months that have no 31st", expression: "*-*-31 08:00", zone: "UTC",
        after: "2026-01-31T09:00:00Z",
        expected: [
            "2026-03-31T08:00:00+00:00", "2026-05-31T08:00:00+00:00", "2026-07-31T08:00:00+00:00",
            "2026-08-31T08:00:00+00:00",
        ]),
    .init(
        name: "weekday and date must both match (Friday the 13th)", expression: "Fri *-*-13 09:00", zone: "UTC",
        after: "2026-01-01T00:00:00Z",
        expected: ["2026-02-13T09:00:00+00:00", "2026-03-13T09:00:00+00:00", "2026-11-13T09:00:00+00:00"]),
    .init(
        name: "a Monday leap day is years apart", expression: "Mon *-02-29 07:00", zone: "UTC",
        after: "2026-01-01T00:00:00Z", expected: ["2044-02-29T07:00:00+00:00"]),
    .init(
        name: "seconds are honoured and after is strict", expression: "07:00:30", zone: "UTC",
        after: "2026-01-01T07:00:30Z", expected: ["2026-01-02T07:00:30+00:00"]),
    .init(
        name: "a second repetition", expression: "07:00:0/20", zone: "UTC", after: "2026-01-01T06:00:00Z",
        expected: [
            "2026-01-01T07:00:00+00:00", "2026-01-01T07:00:20+00:00", "2026-01-01T07:00:40+00:00",
            "2026-01-02T07:00:00+00:00",
        ]),
    .init(
        name: "an hour repetition runs to the end of the day", expression: "Mon,Wed 1/6:00", zone: "UTC",
        after: "2026-11-23T00:00:00Z",
        expected: [
            "2026-11-23T01:00:00+00:00", "2026-11-23T07:00:00+00:00", "2026-11-23T13:00:00+00:00",
            "2026-11-23T19:00:00+00:00", "2026-11-25T01:00:00+00:00",
        ]),
    .init(
        name: "ranges and lists in the time", expression: "8..9:15,45", zone: "UTC", after: "2026-01-01T08:20:00Z",
        expected: [
            "2026-01-01T08:45:00+00:00", "2026-01-01T09:15:00+00:00", "2026-01-01T09:45:00+00:00",
            "2026-01-02T08:15:00+00:00",
        ]),
    .init(
        name: "a range with a step", expression: "*-*-1..10/3 06:00", zone: "UTC", after: "2026-01-01T07:00:00Z",
        expected: [
            "2026-01-04T06:00:00+00:00", "2026-01-07T06:00:00+00:00", "2026-01-10T06:00:00+00:00",
            "2026-02-01T06:00:00+00:00",
        ]),
    .init(
        name: "Christmas morning every year", expression: "*-12-25 08:00", zone: "Europe/Berlin",
        after: "2026-12-25T08:00:00+01:00", expected: ["2027-12-25T08:00:00+01:00", "2028-12-25T08:00:00+01:00"]),
    .init(
        name: "a fully dated alarm rings once, then never", expression: "2026-12-24 07:00", zone: "Europe/Berlin",
        after: "2026-11-22T00:00:00Z", expected: ["2026-12-24T07:00:00+01:00"]),
    .init(
        name: "weekends shortcut", expression: "weekends 09:00", zone: "UTC", after: "2026-11-20T00:00:00Z",
        expected: ["2026-11-21T09:00:00+00:00", "2026-11-22T09:00:00+00:00", "2026-11-28T09:00:00+00:00"]),
    .init(
        name: "weekdays shortcut", expression: "weekdays 06:30", zone: "UTC", after: "2026-11-21T00:00:00Z",
        expected: ["2026-11-23T06:30:00+00:00", "2026-11-24T06:30:00+00:00"]),
    .init(
        name: "a weekday range wraps around the week", expression: "Fri..Mon 10:00", zone: "UTC",
        after: "2026-11-19T00:00:00Z",
        expected: [
            "2026-11-20T10:00:00+00:00", "2026-11-21T10:00:00+00:00", "2026-11-22T10:00:00+00:00",
            "2026-11-23T10:00:00+00:00", "2026-11-27T10:00:00+00:00",
        ]),
    .init(
        name: "year lists and ranges", expression: "2027,2029..2030-01-01 00:00", zone: "UTC",
        after: "2026-06-01T00:00:00Z",
        expected: ["2027-01-01T00:00:00+00:00", "2029-01-01T00:00:00+00:00", "2030-01-01T00:00:00+00:00"]),
]

/// Issue #12: the forms of systemd.time(7) we lacked: `~` (days from the month's end), dates
/// without a time, the shortcuts; on month ends, leap years, the last day of February, DST days.
let systemdFormCases: [ScheduleCase] = [
    .init(
        name: "the last day of February: the 28th, the 29th in leap years", expression: "*-02~01 07:00", zone: "UTC",
        after: "2026-01-01T00:00:00Z",
        expected: [
            "2026-02-28T07:00:00+00:00", "2027-02-28T07:00:00+00:00", "2028-02-29T07:00:00+00:00",
            "2029-02-28T07:00:00+00:00",
        ]),
    .init(
        name: "the day before the last of February, at midnight (a date without a time)", expression: "*-02~02",
        zone: "UTC",
        after: "2026-01-01T00:00:00Z",
        expected: ["2026-02-27T00:00:00+00:00", "2027-02-27T00:00:00+00:00", "2028-02-28T00:00:00+00:00"]),
    .init(
        name: "2100 is no leap year: its February ends on the 28th", expression: "2100-02~01 07:00", zone: "UTC",
        after: "2026-01-01T00:00:00Z", expected: ["2100-02-28T07:00:00+00:00"]),
    .init(
        name: "the last day of every month, across Berlin's spring-forward month", expression: "*-*~01 09:00",
        zone: "Europe/Berlin", after: "2026-01-31T09:00:00+01:00",
        expected: [
            "2026-02-28T09:00:00+01:00", "2026-03-31T09:00:00+02:00", "2026-04-30T09:00:00+02:00",
            "2026-05-31T09:00:00+02:00",
        ]),
    .init(
        name: "the last three days of each month, leap February included", expression: "*-*~03/1 18:00", zone: "UTC",
        after: "2028-02-01T00:00:00Z",
        expected: [
            "2028-02-27T18:00:00+00:00", "2028-02-28T18:00:00+00:00", "2028-02-29T18:00:00+00:00",
            "2028-03-29T18:00:00+00:00",
        ]),
    .init(
        name: "the last Monday of May", expression: "Mon *-05~07/1 07:00", zone: "UTC", after: "2026-01-01T00:00:00Z",
        expected: ["2026-05-25T07:00:00+00:00", "2027-05-31T07:00:00+00:00", "2028-05-29T07:00:00+00:00"]),
    .init(
        name: "the last Sunday of March at 02:30 in Berlin is in the gap: 03:30 CEST",
        expression: "Sun *-03~07/1 02:30",
        zone: "Europe/Berlin", after: "2026-01-01T00:00:00Z",
        expected: ["2026-03-29T03:30:00+02:00", "2027-03-28T03:30:00+02:00"]),
    .init(
        name: "the last Sunday of October at 02:30 in Berlin rings at the first 02:30",
        expression: "Sun *-10~07/1 02:30",
        zone: "Europe/Berlin", after: "2026-01-01T00:00:00Z",
        expected: ["2026-10-25T02:30:00+02:00", "2027-10-31T02:30:00+02:00"]),
    .init(
        name: "the 29th to 31st skip February", expression: "*-*-29,30,31 08:00", zone: "UTC",
        after: "2027-01-31T09:00:00Z",
        expected: [
            "2027-03-29T08:00:00+00:00", "2027-03-30T08:00:00+00:00", "2027-03-31T08:00:00+00:00",
            "2027-04-29T08:00:00+00:00",
        ]),
    // Santiago springs forward at midnight: 2026-09-06 00:00 does not exist.
    .init(
        name: "daily (midnight) in Santiago on its spring-forward day rings at 01:00", expression: "daily",
        zone: "America/Santiago", after: "2026-09-04T12:00:00-04:00",
        expected: ["2026-09-05T00:00:00-04:00", "2026-09-06T01:00:00-03:00", "2026-09-07T00:00:00-03:00"]),
    .init(
        name: "a date without a time is midnight, shifted out of Santiago's gap", expression: "2026-09-06",
        zone: "America/Santiago", after: "2026-01-01T00:00:00Z", expected: ["2026-09-06T01:00:00-03:00"]),
    .init(
        name: "hourly across New York's fall-back: the repeated 01:00 rings once", expression: "hourly",
        zone: "America/New_York", after: "2026-11-01T00:30:00-04:00",
        expected: ["2026-11-01T01:00:00-04:00", "2026-11-01T02:00:00-05:00", "2026-11-01T03:00:00-05:00"]),
    .init(
        name: "hourly across New York's spring-forward: 02:00 is gone, 03:00 rings once", expression: "hourly",
        zone: "America/New_York", after: "2026-03-08T00:30:00-05:00",
        expected: ["2026-03-08T01:00:00-05:00", "2026-03-08T03:00:00-04:00", "2026-03-08T04:00:00-04:00"]),
    .init(
        name: "minutely", expression: "minutely", zone: "UTC", after: "2026-11-20T00:00:30Z",
        expected: ["2026-11-20T00:01:00+00:00", "2026-11-20T00:02:00+00:00"]),
    .init(
        name: "weekly is Monday midnight", expression: "weekly", zone: "UTC", after: "2026-11-20T00:00:00Z",
        expected: ["2026-11-23T00:00:00+00:00", "2026-11-30T00:00:00+00:00"]),
    .init(
        name: "monthly is the first at midnight", expression: "monthly", zone: "UTC", after: "2026-11-20T00:00:00Z",
        expected: ["2026-12-01T00:00:00+00:00", "2027-01-01T00:00:00+00:00"]),
    .init(
        name: "quarterly", expression: "quarterly", zone: "UTC", after: "2026-11-20T00:00:00Z",
        expected: ["2027-01-01T00:00:00+00:00", "2027-04-01T00:00:00+00:00", "2027-07-01T00:00:00+00:00"]),
    .init(
        name: "semiannually", expression: "semiannually", zone: "UTC", after: "2026-11-20T00:00:00Z",
        expected: ["2027-01-01T00:00:00+00:00", "2027-07-01T00:00:00+00:00"]),
    .init(
        name: "yearly, pinned to Tokyo", expression: "yearly Asia/Tokyo", zone: "UTC", after: "2026-11-20T00:00:00Z",
        expected: ["2027-01-01T00:00:00+09:00", "2028-01-01T00:00:00+09:00"]),
    .init(
        name: "two-digit years are 2000..2069", expression: "27-01-01 06:00", zone: "UTC",
        after: "2026-11-20T00:00:00Z",
        expected: ["2027-01-01T06:00:00+00:00"]),
    // systemd 252 skips 02:00 and 13:00 of 1 January here (it carries hour 38 into the new year).
    .init(
        name: "a repetition past the day's end on New Year's Eve: 1 January starts afresh", expression: "2/18,13:00",
        zone: "Etc/GMT+5", after: "2025-12-31T19:00:00-05:00",
        expected: [
            "2025-12-31T20:00:00-05:00", "2026-01-01T02:00:00-05:00", "2026-01-01T13:00:00-05:00",
            "2026-01-01T20:00:00-05:00",
        ]),
    .init(
        name: "a repetition with a range", expression: "*-*-* 2..7/2:00", zone: "UTC", after: "2026-11-20T00:00:00Z",
        expected: [
            "2026-11-20T02:00:00+00:00", "2026-11-20T04:00:00+00:00", "2026-11-20T06:00:00+00:00",
            "2026-11-21T02:00:00+00:00",
        ]),
]

@Suite("Schedule: DST gaps and overlaps in many zones")
struct DSTScheduleTests {
    @Test(arguments: dstCases)
    func rings(_ c: ScheduleCase) throws {
        #expect(try AlarmCoreTests.rings(c) == c.expected)
    }
}

@Suite("Schedule: calendar components")
struct CalendarScheduleTests {
    @Test(arguments: calendarCases)
    func rings(_ c: ScheduleCase) throws {
        #expect(try AlarmCoreTests.rings(c) == c.expected)
    }

    @Test(arguments: systemdFormCases)
    func systemdForms(_ c: ScheduleCase) throws {
        #expect(try AlarmCoreTests.rings(c) == c.expected)
    }

    @Test("a fully dated expression is single, also counted from the month's end")
    func single() throws {
        #expect(try CalendarExpression("2026-02~01 07:00").isSingleOccurrence)
        #expect(try CalendarExpression("2026-12-24").isSingleOccurrence)
        #expect(try !CalendarExpression("2026-12-24 07:00:*").isSingleOccurrence)
        #expect(try !CalendarExpression("2026-12-24..25 07:00").isSingleOccurrence)
        #expect(try !CalendarExpression("2026..2027-12-24 07:00").isSingleOccurrence)
    }

    @Test("a fully dated alarm has no ring after its one")
    func datedEnds() throws {
        let e = try CalendarExpression("2026-12-24 07:00")
        #expect(e.isSingleOccurrence)
        let berlin = try Zones.zone(named: "Europe/Berlin")
        let first = try #require(Schedule.next(e, after: RFC3339.parse("2026-01-01T00:00:00Z")!, in: berlin))
        #expect(Schedule.next(e, after: first, in: berlin) == nil)
    }

    @Test("an expression past the year range never rings")
    func pastEnd() throws {
        let e = try CalendarExpression("07:00")
        #expect(Schedule.next(e, after: RFC3339.parse("2199-12-31T08:00:00Z")!, in: Zone.utc) == nil)
    }
}

@Suite("Schedule: every mode across gaps and overlaps")
struct ModeTests {
    let after = RFC3339.parse("2026-03-07T12:00:00-05:00")!

    @Test("floating follows the system zone it is given")
    func floating() throws {
        let alarm = Alarm(id: "a", trigger: .calendar(try CalendarExpression("02:30")))
        #expect(alarm.mode == .floating)
        let ny = try Zones.zone(named: "America/New_York")
        let la = try Zones.zone(named: "America/Los_Angeles")
        let inNY = try #require(alarm.nextRing(after: after, systemZone: ny))
        #expect(RFC3339.format(inNY, in: ny) == "2026-03-08T03:30:00-04:00")
        // Same wall clock in another zone: Los Angeles also springs forward that day.
        let inLA = try #require(alarm.nextRing(after: after, systemZone: la))
        #expect(RFC3339.format(inLA, in: la) == "2026-03-08T03:30:00-07:00")
    }

    @Test("pinned ignores the system zone")
    func pinned() throws {
        let alarm = Alarm(id: "a", trigger: .calendar(try CalendarExpression("02:30 America/New_York")))
        #expect(alarm.mode == .pinned)
        let a = alarm.nextRing(after: after, systemZone: try Zones.zone(named: "Asia/Tokyo"))
        let b = alarm.nextRing(after: after, systemZone: try Zones.zone(named: "Europe/London"))
        #expect(a == b)
        #expect(
            RFC3339.format(try #require(a), in: try Zones.zone(named: "America/New_York"))
                == "2026-03-08T03:30:00-04:00")
    }

    @Test("absolute instants ignore zones and DST, and ring once")
    func absolute() throws {
        let instant = try #require(RFC3339.parse("2026-11-01T06:30:00Z"))  // inside New York's overlap
        let alarm = Alarm(id: "a", trigger: .instant(instant))
        #expect(alarm.mode == .absolute)
        #expect(alarm.ringsOnce)
        for zone in ["America/New_York", "Pacific/Apia", "UTC"] {
            #expect(
                alarm.nextRing(after: RFC3339.parse("2026-10-31T00:00:00Z")!, systemZone: try Zones.zone(named: zone))
                    == instant)
        }
        #expect(alarm.nextRing(after: instant, systemZone: .utc) == nil)
    }
}

@Suite("Schedule: invariants over many zones and days")
struct InvariantTests {
    static let zones = [
        "America/New_York", "Europe/London", "Europe/Dublin", "Australia/Lord_Howe", "Pacific/Chatham",
        "America/St_Johns", "Asia/Kolkata", "Pacific/Apia", "Australia/Sydney", "UTC", "America/Santiago",
        "Africa/Casablanca", "Asia/Tehran",
    ]

    @Test("ring instants strictly increase and each day's wall time rings exactly once", arguments: zones)
    func strictlyIncreasing(zoneName: String) throws {
        let tz = try Zones.zone(named: zoneName)
        for text in ["00:30", "01:30", "02:15", "02:30", "03:00"] {
            let e = try CalendarExpression(text)
            var cursor = RFC3339.parse("2011-01-01T00:00:00Z")!
            var previous: Date? = nil
            var days = Set<String>()
            for _ in 0..<800 {
                let n = try #require(Schedule.next(e, after: cursor, in: tz))
                if let previous { #expect(n > previous) }
                // Every ring is on its own wall-clock day (a shifted ring stays on its day, except
                // Apia's vanished day, which merges into the next).
                let day = String(RFC3339.format(n, in: tz).prefix(10))
                #expect(!days.contains(day), "\(text) rang twice on \(day) in \(zoneName)")
                days.insert(day)
                previous = n
                cursor = n
            }
        }
    }
}
