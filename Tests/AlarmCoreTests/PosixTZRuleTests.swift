import Foundation
import Testing

@testable import AlarmCore

/// One rule and what it must say: its offsets, and when daylight time starts and ends in a year
/// (UTC instants). Hand-computed; checked against glibc's tzset where glibc is right (it evaluates
/// rules per UTC year, so it flips at New Year for rules whose changes cross it; we do not).
struct RuleCase: CustomTestStringConvertible, Sendable {
    var name: String
    var rule: String
    var standard: Int
    var daylight: Int?
    var year: Int
    var start: String?
    var end: String?
    var testDescription: String { name }
}

let ruleCases: [RuleCase] = [
    .init(
        name: "EST5EDT,M3.2.0,M11.1.0: US rules, 02:00 local", rule: "EST5EDT,M3.2.0,M11.1.0",
        standard: -18000, daylight: -14400, year: 2026, start: "2026-03-08T07:00:00Z", end: "2026-11-01T06:00:00Z"),
    .init(
        name: "Lord Howe: quoted names, half-hour offsets, 30-minute daylight time, southern summer",
        rule: "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0", standard: 37800, daylight: 39600, year: 2026,
        start: "2026-10-03T15:30:00Z", end: "2026-04-04T15:00:00Z"),
    .init(
        name: "Dublin: negative daylight time (GMT in winter is the daylight period)",
        rule: "IST-1GMT0,M10.5.0,M3.5.0/1",
        standard: 3600, daylight: 0, year: 2026, start: "2026-10-25T01:00:00Z", end: "2026-03-29T01:00:00Z"),
    .init(
        name: "Nuuk: negative transition times (-2 and -1 hours)", rule: "<-03>3<-02>,M3.5.0/-2,M10.5.0/-1",
        standard: -10800, daylight: -7200, year: 2026, start: "2026-03-29T01:00:00Z", end: "2026-10-25T01:00:00Z"),
    .init(
        name: "Jerusalem: extended hour /26 (Thursday 26:00 is Friday 02:00)", rule: "IST-2IDT,M3.4.4/26,M10.5.0",
        standard: 7200, daylight: 10800, year: 2026, start: "2026-03-27T00:00:00Z", end: "2026-10-24T23:00:00Z"),
    .init(
        name: "Troll: two-hour daylight time", rule: "<+00>0<+02>-2,M3.5.0/1,M10.5.0/3",
        standard: 0, daylight: 7200, year: 2026, start: "2026-03-29T01:00:00Z", end: "2026-10-25T01:00:00Z"),
    .init(
        name: "Jn never counts February 29: J60 is March 1 in a leap year", rule: "AAA3BBB,J60/0,J365/0",
        standard: -10800, daylight: -7200, year: 2024, start: "2024-03-01T03:00:00Z", end: "2024-12-31T02:00:00Z"),
    .init(
        name: "Jn: J59 is February 28 even in a leap year", rule: "AAA3BBB,J59/0,J300/0",
        standard: -10800, daylight: -7200, year: 2024, start: "2024-02-28T03:00:00Z", end: "2024-10-27T02:00:00Z"),
    .init(
        name: "n counts February 29 and is zero-based: 59 is February 29 in 2024", rule: "AAA3BBB,59/0,300/0",
        standard: -10800, daylight: -7200, year: 2024, start: "2024-02-29T03:00:00Z", end: "2024-10-27T02:00:00Z"),
    .init(
        name: "n: 60 is March 2 in 2023, and 365 is January 1 of the next year", rule: "AAA3BBB,60/0,365/0",
        standard: -10800, daylight: -7200, year: 2023, start: "2023-03-02T03:00:00Z", end: "2024-01-01T02:00:00Z"),
    .init(
        name: "extended hours spill across New Year: M12.5.6/100 ends on January 3",
        rule: "AAA3BBB,M2.5.4/50,M12.5.6/100",
        standard: -10800, daylight: -7200, year: 2023, start: "2023-02-25T05:00:00Z", end: "2024-01-03T06:00:00Z"),
    .init(
        name: "M5 is the last week: March 2026 has four Sundays after the 1st", rule: "CET-1CEST,M3.5.0,M10.5.0/3",
        standard: 3600, daylight: 7200, year: 2026, start: "2026-03-29T01:00:00Z", end: "2026-10-25T01:00:00Z"),
    .init(
        name: "offsets with minutes and seconds", rule: "<+0545>-5:45", standard: 20700, daylight: nil, year: 2026),
    .init(
        name: "daylight offset given explicitly (two hours)", rule: "XXX3YYY1,M3.2.0,M11.1.0",
        standard: -10800, daylight: -3600, year: 2026, start: "2026-03-08T05:00:00Z", end: "2026-11-01T03:00:00Z"),
    .init(name: "no daylight time: one offset", rule: "<+05>-5", standard: 18000, daylight: nil, year: 2026),
    .init(
        name: "daylight time without dates: the US rules", rule: "PST8PDT",
        standard: -28800, daylight: -25200, year: 2026, start: "2026-03-08T10:00:00Z", end: "2026-11-01T09:00:00Z"),
]

@Suite("POSIX TZ rules: parsing and evaluation")
struct PosixTZRuleTests {
    func unix(_ s: String) -> Int64 { Int64(RFC3339.parse(s)!.timeIntervalSince1970) }

    @Test(arguments: ruleCases)
    func changes(_ c: RuleCase) throws {
        let r = try PosixTZRule(c.rule)
        #expect(r.standard.offset == c.standard)
        #expect(r.daylight?.offset == c.daylight)
        guard let start = c.start, let end = c.end else {
            #expect(r.nextChange(afterUnix: unix("2026-01-01T00:00:00Z")) == nil)
            #expect(r.period(atUnix: unix("2026-07-01T00:00:00Z")).offset == c.standard)
            return
        }
        let (on, off) = r.changes(year: c.year)
        #expect(on == unix(start), "start \(RFC3339.format(Date(timeIntervalSince1970: TimeInterval(on)), in: .utc))")
        #expect(off == unix(end), "end \(RFC3339.format(Date(timeIntervalSince1970: TimeInterval(off)), in: .utc))")
        // Around each change: the offset before, at and after, and nextChange finds it.
        for (t, dstAfter) in [(unix(start), true), (unix(end), false)] {
            #expect(r.isDaylight(atUnix: t - 1) == !dstAfter)
            #expect(r.isDaylight(atUnix: t) == dstAfter)
            #expect(r.period(atUnix: t).offset == (dstAfter ? c.daylight! : c.standard))
            #expect(r.nextChange(afterUnix: t - 3600) == t)
            #expect(r.nextChange(afterUnix: t - 1) == t)
            #expect(r.nextChange(afterUnix: t) != t)
        }
    }

    @Test("all-year daylight time (0/0,J365/25) is daylight time at every instant and never changes")
    func allYearDaylight() throws {
        let r = try PosixTZRule("EST5EDT,0/0,J365/25")
        for year in [2023, 2024, 2100] {
            for t in [
                unix("\(year)-01-01T00:00:00Z"), unix("\(year)-01-01T04:59:59Z"), unix("\(year)-01-01T05:00:00Z"),
                unix("\(year)-07-01T00:00:00Z"),
            ] {
                #expect(r.period(atUnix: t).offset == -14400)
            }
        }
        #expect(r.nextChange(afterUnix: unix("2026-06-01T00:00:00Z")) == nil)
    }

    @Test("the text round-trips and names the periods")
    func names() throws {
        let r = try PosixTZRule("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0")
        #expect(r.description == "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0")
        #expect(r.standard.abbreviation == "+1030" && r.daylight?.abbreviation == "+11")
        #expect(r.start == .init(day: .monthWeekDay(month: 10, week: 1, weekday: 0), time: 7200))
    }

    static let bad: [(String, String)] = [
        ("", "expected a standard time name"),
        ("EST", "expected the standard time offset"),
        ("<+05-5", "no closing '>'"),
        ("<+0_5>-5", "only letters, digits"),
        ("EST25", "hours 0...24"),
        ("EST5EDT,M13.1.0,M11.1.0", "m in 1...12"),
        ("EST5EDT,M3.6.0,M11.1.0", "w in 1...5"),
        ("EST5EDT,M3.2.7,M11.1.0", "d in 0...6"),
        ("EST5EDT,J0,J365", "n in 1...365"),
        ("EST5EDT,366,J365", "Jn, n or Mm.w.d"),
        ("EST5EDT,M3.2.0/168,M11.1.0", "hours 0...167"),
        ("EST5EDT,M3.2.0", "between the start and the end"),
        ("EST5EDT,M3.2.0,M11.1.0x", "unexpected 'x'"),
        ("EST5:60", "minutes 00...59"),
    ]

    @Test("malformed rules are refused with what is wrong", arguments: bad.map(\.0))
    func refused(_ text: String) {
        let expected = Self.bad.first { $0.0 == text }!.1
        do {
            _ = try PosixTZRule(text)
            Issue.record("'\(text)' must be refused")
        } catch {
            #expect("\(error)".contains(expected), "\(error)")
            #expect("\(error)".hasPrefix("invalid TZ rule '\(text)'"))
        }
    }

    @Test("a zone made from a rule answers offsets, abbreviations and transitions from it")
    func zoneFromRule() throws {
        let z = Zone(identifier: "EST5EDT,M3.2.0,M11.1.0", rule: try PosixTZRule("EST5EDT,M3.2.0,M11.1.0"))
        let summer = RFC3339.parse("2090-07-01T12:00:00Z")!
        #expect(z.secondsFromGMT(for: summer) == -14400)
        #expect(z.abbreviation(for: summer) == "EDT")
        #expect(z.isDaylightSavingTime(for: summer))
        #expect(z.nextDaylightSavingTimeTransition(after: summer) == RFC3339.parse("2090-11-05T06:00:00Z"))
    }
}
