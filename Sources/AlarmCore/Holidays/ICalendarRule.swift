import FoundationEssentials

/// A yearly `RRULE` of an all-day event, as holiday calendars write them:
/// `FREQ=YEARLY` (Christmas: the start's month and day every year),
/// `FREQ=YEARLY;BYMONTH=11;BYDAY=4TH` (the fourth Thursday of November),
/// `FREQ=YEARLY;BYMONTH=5;BYDAY=-1MO` (the last Monday of May),
/// `FREQ=YEARLY;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8` (both must match),
/// with `INTERVAL`, `COUNT` and `UNTIL` (a date, or the date of a date-time). `WKST` changes
/// nothing for these and is passed over; any other part is refused, naming it.
struct YearlyRule {
    var line: Int
    /// DTSTART, days since 1970; it is always the first instance (RFC 5545).
    var start: Int64
    var interval = 1
    var count: Int?
    var until: Int64?
    var months: [Int]?
    /// 1...31, or -31...-1 counted from the month's end.
    var monthDays: [Int]?
    /// (ordinal, weekday 0 = Monday): ordinal 0 for every such weekday, else the n-th (from the
    /// end when negative) within the month (with BYMONTH) or the year.
    var weekdays: [(ordinal: Int, weekday: Int)]?

    static let weekdayCodes = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]

    init(_ l: ICalendarHolidays.Line, start: Int64) throws(HolidayFileError) {
        line = l.number
        self.start = start
        func fail(_ m: String) -> HolidayFileError { HolidayFileError(line: l.number, "RRULE \(m)") }
        func ints(
            _ v: String, _ range: ClosedRange<Int>, _ key: String, nonZero: Bool = false
        ) throws(HolidayFileError) -> [Int] {
            var out: [Int] = []
            for p in v.split(separator: ",") {
                guard let n = Int(p.trimmingBlanks()), range.contains(n), !(nonZero && n == 0) else {
                    throw fail("\(key)=\(v): '\(p)' is out of range \(range.lowerBound)..\(range.upperBound)")
                }
                out.append(n)
            }
            guard !out.isEmpty else { throw fail("\(key) is empty") }
            return out
        }
        var freq: String?
        for part in l.value.split(separator: ";") {
            let kv = part.split(separator: "=", maxSplits: 1).map { String($0).trimmingBlanks() }
            guard kv.count == 2 else { throw fail("part '\(part)' is not KEY=VALUE") }
            let (key, value) = (kv[0].uppercased(), kv[1].uppercased())
            switch key {
            case "FREQ": freq = value
            case "INTERVAL": interval = try ints(value, 1...1000, key)[0]
            case "COUNT": count = try ints(value, 1...100_000, key)[0]
            case "UNTIL":
                var u = l
                u.name = "UNTIL"
                until = try ICalendarHolidays.day(value, line: u)
            case "BYMONTH": months = try ints(value, 1...12, key)
            case "BYMONTHDAY": monthDays = try ints(value, -31...31, key, nonZero: true)
            case "BYDAY":
                var list: [(Int, Int)] = []
                for p in value.split(separator: ",") {
                    let code = String(p.suffix(2))
                    let number = p.dropLast(2).trimmingBlanks()
                    guard let w = Self.weekdayCodes.firstIndex(of: code),
                        let n = number.isEmpty ? 0 : Int(number.hasPrefix("+") ? String(number.dropFirst()) : number),
                        (-53...53).contains(n)
                    else { throw fail("BYDAY=\(value): '\(p)' is not a weekday such as MO, 4TH or -1MO") }
                    list.append((n, w))
                }
                weekdays = list
            case "WKST": break
            default:
                throw fail(
                    "part \(key) is not read: holiday rules are FREQ=YEARLY with INTERVAL, COUNT, UNTIL, BYMONTH, BYMONTHDAY and BYDAY"
                )
            }
        }
        guard let freq else { throw fail("has no FREQ") }
        guard freq == "YEARLY" else {
            throw fail("FREQ=\(freq) is not read: only yearly rules (FREQ=YEARLY), as holiday calendars use them")
        }
        if count != nil && until != nil { throw fail("has both COUNT and UNTIL (RFC 5545 allows one)") }
    }

    /// The instances after DTSTART (days since 1970), in order, up to the end of
    /// `CalendarExpression.yearRange`.
    func expand() -> [Int64] {
        let (sy, sm, sd) = CivilTime.civil(fromDays: start)
        let lastYear = CalendarExpression.yearRange.upperBound
        var year = sy
        if count == nil, sy < CalendarExpression.yearRange.lowerBound {
            // Nothing before 1970 can matter unless it counts towards COUNT.
            let skip = (CalendarExpression.yearRange.lowerBound - sy + interval - 1) / interval
            year = sy + skip * interval
        }
        var out: [Int64] = []
        var n = 1  // DTSTART
        while year <= lastYear {
            if let until, CivilTime.days(year: year, month: 1, day: 1) > until { break }
            for d in candidates(year, sm, sd) where d > start {
                if let until, d > until { return out }
                n += 1
                if let count, n > count { return out }
                out.append(d)
            }
            year += interval
        }
        return out
    }

    /// The days of `year` the rule names, in order.
    func candidates(_ y: Int, _ sm: Int, _ sd: Int) -> [Int64] {
        var out: [Int64] = []
        if monthDays == nil && weekdays == nil {
            for m in (months ?? [sm]).sorted() where sd <= CivilTime.daysIn(month: m, year: y) {
                out.append(CivilTime.days(year: y, month: m, day: sd))
            }
            return out
        }
        let yearStart = CivilTime.days(year: y, month: 1, day: 1)
        let daysInYear: Int64 = CivilTime.isLeap(y) ? 366 : 365
        for m in (months ?? Array(1...12)).sorted() {
            let dim = CivilTime.daysIn(month: m, year: y)
            let monthStart = CivilTime.days(year: y, month: m, day: 1)
            for d in 1...dim {
                if let md = monthDays, !md.contains(where: { $0 > 0 ? $0 == d : dim + $0 + 1 == d }) { continue }
                let day = monthStart + Int64(d - 1)
                if let wd = weekdays {
                    let w = CivilTime.weekday(ofDays: day)
                    let matches = wd.contains { entry in
                        guard entry.weekday == w else { return false }
                        if entry.ordinal == 0 { return true }
                        let (position, length) =
                            months != nil ? (Int64(d), Int64(dim)) : (day - yearStart + 1, daysInYear)
                        return entry.ordinal > 0
                            ? (position - 1) / 7 + 1 == Int64(entry.ordinal)
                            : (length - position) / 7 + 1 == Int64(-entry.ordinal)
                    }
                    if !matches { continue }
                }
                out.append(day)
            }
        }
        return out
    }
}
