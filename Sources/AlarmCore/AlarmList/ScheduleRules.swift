import FoundationEssentials

/// `--every DURATION` (issue #12): how an alarm's occurrences repeat beyond its calendar
/// expression.
///
/// - `days` and `weeks` count calendar days in the alarm's zone, so the wall clock holds across
///   DST: they thin out the days of a calendar expression, counted from the date of `from` (day
///   0). `--every Nd`: the expression rings on days 0, N, 2N, … (`06:00 --every 3d`: every third
///   day). `--every Nw`: on the weeks 0, N, 2N, …, a week being the seven days from day 0, 7, 14,
///   …; in such a week the expression rings on the weekdays it names (`Mon 06:30 --every 2w`:
///   every other Monday; `Mon..Fri 06:30 --every 2w`: Monday to Friday of every other week). An
///   expression that names no weekdays (`06:00`) rings on the first day of those weeks: every
///   N × 7 days, as `--every 14d` would.
/// - `seconds` is an exact interval from an instant (the alarm's `at`): `--every 90m`.
///
/// Written as users type it and as the store keeps it: `2w`, `3d` (only `w` or `d` units: calendar
/// days), `90m`, `1h30m`, `36h` (any `h`, `m` or `s` unit: exact). The normal form is one unit,
/// the largest that divides it (`1h30m` is `90m`, `1d12h` is `36h`), never a bare `d` for an
/// exact interval, so it reads back the same.
public enum RepeatInterval: Hashable, Sendable, CustomStringConvertible {
    case days(Int)
    case weeks(Int)
    case seconds(Int64)

    /// The longest interval accepted: ten years.
    static let maxSeconds: Int64 = 3660 * 86400

    public var isCalendar: Bool {
        if case .seconds = self { return false }
        return true
    }

    /// The cycle in days and the length of its "on" block (calendar intervals only), for an
    /// expression that names weekdays (`namesWeekdays`) or not.
    func cycle(namesWeekdays: Bool) -> (period: Int64, block: Int64)? {
        switch self {
        case .days(let n): return (Int64(n), 1)
        case .weeks(let n): return (Int64(n) * 7, namesWeekdays ? 7 : 1)
        case .seconds: return nil
        }
    }

    public var description: String {
        switch self {
        case .days(let n): return "\(n)d"
        case .weeks(let n): return "\(n)w"
        case .seconds(let s):
            // One unit, the largest that divides it: `90m` stays `90m`; whole days are written
            // in hours, since a bare `d` would read back as calendar days.
            if s % 3600 == 0 { return "\(s / 3600)h" }
            if s % 60 == 0 { return "\(s / 60)m" }
            return "\(s)s"
        }
    }

    static let units: [String: (seconds: Double, calendar: Bool)] = [
        "w": (604_800, true), "d": (86400, true), "h": (3600, false), "m": (60, false), "min": (60, false),
        "s": (1, false), "sec": (1, false),
    ]

    /// The normal form (`2w`, `3d`, `90m`: digits and one unit), read without allocating: the
    /// store holds thousands.
    static func normalForm(_ text: String) -> RepeatInterval? {
        var n: Int64 = 0
        var digits = 0
        var unit: UInt8 = 0
        for c in text.utf8 {
            if unit != 0 { return nil }
            if c >= 48 && c <= 57, digits < 12 {
                n = n * 10 + Int64(c - 48)
                digits += 1
            } else if digits > 0,
                [UInt8(ascii: "w"), UInt8(ascii: "d"), UInt8(ascii: "h"), UInt8(ascii: "m"), UInt8(ascii: "s")]
                    .contains(c)
            {
                unit = c
            } else {
                return nil
            }
        }
        guard n > 0 else { return nil }
        switch unit {
        case UInt8(ascii: "w") where n * 7 <= 3660: return .weeks(Int(n))
        case UInt8(ascii: "d") where n <= 3660: return .days(Int(n))
        case UInt8(ascii: "h") where n * 3600 <= maxSeconds: return .seconds(n * 3600)
        case UInt8(ascii: "m") where n * 60 <= maxSeconds: return .seconds(n * 60)
        case UInt8(ascii: "s") where n <= maxSeconds: return .seconds(n)
        default: return nil
        }
    }

    /// Parses `2w`, `3d`, `90m`, `1h30m`, `45s` (`min`, `sec` too; blanks ignored).
    public static func parse(_ text: String) throws(AlarmError) -> RepeatInterval {
        if let quick = normalForm(text) { return quick }
        let s = Array(text.lowercased().utf8.filter { $0 != 32 && $0 != 9 })
        let example = "write e.g. 2w (every other week), 3d (every third day) or 90m"
        guard !s.isEmpty else { throw AlarmError.invalid("empty interval: \(example)") }
        let units = Self.units
        var total = 0.0
        var calendarOnly = true
        var weeksOnly = true
        var i = 0
        while i < s.count {
            var number = ""
            while i < s.count, (s[i] >= 48 && s[i] <= 57) || s[i] == 46 {
                number.append(Character(Unicode.Scalar(s[i])))
                i += 1
            }
            var unit = ""
            while i < s.count, s[i] >= 97 && s[i] <= 122 {
                unit.append(Character(Unicode.Scalar(s[i])))
                i += 1
            }
            guard let value = Double(number), value.isFinite, let u = units[unit] else {
                if !number.isEmpty && unit.isEmpty {
                    throw AlarmError.invalid(
                        "invalid interval '\(text)': a number needs a unit (w, d, h, m or s); \(example)")
                }
                throw AlarmError.invalid("invalid interval '\(text)': \(example)")
            }
            total += value * u.seconds
            calendarOnly = calendarOnly && u.calendar
            weeksOnly = weeksOnly && unit == "w"
        }
        guard total >= 1, total <= Double(maxSeconds) else {
            throw AlarmError.invalid("invalid interval '\(text)': it must be at least 1s and at most 3660d")
        }
        if calendarOnly {
            guard total.truncatingRemainder(dividingBy: 86400) == 0 else {
                throw AlarmError.invalid(
                    "invalid interval '\(text)': days and weeks count whole calendar days; for an exact interval write hours, e.g. 36h"
                )
            }
            let days = Int(total / 86400)
            return weeksOnly && days % 7 == 0 ? .weeks(days / 7) : .days(days)
        }
        guard total == total.rounded() else {
            throw AlarmError.invalid("invalid interval '\(text)': an exact interval is a whole number of seconds")
        }
        return .seconds(Int64(total))
    }
}

/// A date bound: `--from`, `--until` and `alarm pause --until`. A date or a wall-clock time is
/// read in the alarm's zone (floating alarms: the system zone at the time); an RFC 3339 instant
/// is an instant.
///
/// Stored as typed, in normal form: `2026-11-23`, `2026-11-23T06:30:00`, `2026-11-23T05:30:00+00:00`.
public enum ScheduleBound: Hashable, Sendable, CustomStringConvertible {
    /// A whole day: the wall-clock seconds (`CivilTime.localSeconds`) of its midnight. (Seconds,
    /// not a `CivilTime`: every alarm carries up to three bounds, and alarms are copied often.)
    case day(Int64)
    /// A wall-clock time, as `CivilTime.localSeconds`.
    case local(Int64)
    /// An instant, in whole seconds.
    case instant(Date)

    /// The day of `c` (its time is ignored).
    public static func day(_ c: CivilTime) -> ScheduleBound {
        .day(CivilTime.days(year: c.year, month: c.month, day: c.day) * 86400)
    }
    /// The wall-clock time `c`.
    public static func local(_ c: CivilTime) -> ScheduleBound { .local(c.localSeconds) }

    public var description: String {
        switch self {
        case .day(let s): return CivilTime(localSeconds: s).date
        case .local(let s): return CivilTime(localSeconds: s).description
        case .instant(let t): return RFC3339.format(t, in: .utc)
        }
    }

    /// `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS]` (or a space for `T`), or RFC 3339 with an offset.
    public static func parse(_ text: String) throws(AlarmError) -> ScheduleBound {
        // The usual form, a date as the store writes it, without allocating.
        let u = text.utf8
        if u.count == 10 {
            var v = [Int](repeating: 0, count: 3)
            var k = 0
            var ok = true
            for (i, c) in u.enumerated() {
                if i == 4 || i == 7 {
                    ok = ok && c == UInt8(ascii: "-")
                    k += 1
                } else if c >= 48 && c <= 57 {
                    v[k] = v[k] * 10 + Int(c - 48)
                } else {
                    ok = false
                }
            }
            if ok, CalendarExpression.yearRange.contains(v[0]), (1...12).contains(v[1]), v[2] >= 1,
                v[2] <= CivilTime.daysIn(month: v[1], year: v[0])
            {
                return .day(CivilTime.days(year: v[0], month: v[1], day: v[2]) * 86400)
            }
        }
        let trimmed = text.trimmingBlanks()
        if let t = RFC3339.parse(trimmed) {
            return .instant(Date(timeIntervalSince1970: t.timeIntervalSince1970.rounded(.down)))
        }
        let s = Array(trimmed.utf8)
        var i = 0
        func num(_ n: Int) -> Int? {
            guard i + n <= s.count else { return nil }
            var v = 0
            for k in 0..<n {
                guard s[i + k] >= 48 && s[i + k] <= 57 else { return nil }
                v = v * 10 + Int(s[i + k] - 48)
            }
            i += n
            return v
        }
        func lit(_ c: UInt8) -> Bool {
            guard i < s.count, s[i] == c || (c == 84 && s[i] == 116) else { return false }
            i += 1
            return true
        }
        let example = "write a date such as 2026-11-23, a local time such as 2026-11-23T06:30, or RFC 3339"
        guard let y = num(4), lit(45), let mo = num(2), lit(45), let d = num(2) else {
            throw AlarmError.invalid("'\(text)' is not a date: \(example)")
        }
        guard CalendarExpression.yearRange.contains(y), (1...12).contains(mo), d >= 1,
            d <= CivilTime.daysIn(month: mo, year: y)
        else {
            throw AlarmError.invalid(
                "'\(text)' is not a date of the calendar (years \(CalendarExpression.yearRange.lowerBound)..\(CalendarExpression.yearRange.upperBound))"
            )
        }
        if i == s.count { return .day(CivilTime(year: y, month: mo, day: d)) }
        guard lit(84) || lit(32), let h = num(2), lit(58), let mi = num(2) else {
            throw AlarmError.invalid("'\(text)' is not a date: \(example)")
        }
        var sec = 0
        if lit(58) {
            guard let ss = num(2) else { throw AlarmError.invalid("'\(text)' is not a date: \(example)") }
            sec = ss
        }
        guard i == s.count else {
            throw AlarmError.invalid("'\(text)' is not a date: \(example) (an offset needs the form +01:00 or Z)")
        }
        guard h < 24, mi < 60, sec < 60 else { throw AlarmError.invalid("'\(text)' is not a time of day") }
        return .local(CivilTime(year: y, month: mo, day: d, hour: h, minute: mi, second: sec))
    }

    /// The wall-clock seconds (`CivilTime.localSeconds`) a date or a wall time starts at; nil
    /// for an instant.
    var wallSeconds: Int64? {
        switch self {
        case .day(let s), .local(let s): return s
        case .instant: return nil
        }
    }

    /// The wall-clock seconds an `until` ends at (a day: the next midnight); nil for an instant.
    var wallEnd: Int64? {
        switch self {
        case .day(let s): return s + 86400
        case .local(let s): return s
        case .instant: return nil
        }
    }

    /// The instant the bound starts at in `zone`: midnight of a day, the wall time, the instant.
    public func start(in zone: Zone) -> Date {
        switch self {
        case .day(let s), .local(let s):
            return Date(timeIntervalSince1970: TimeInterval(Alarm.instantSeconds(forLocal: s, in: zone)))
        case .instant(let t): return t
        }
    }

    /// The instant an `until` bound ends at in `zone`, and whether it is included: a day is
    /// included whole (up to the next midnight, excluded); a time or an instant is included.
    func end(in zone: Zone) -> (at: Date, inclusive: Bool) {
        switch self {
        case .day(let s):
            return (
                Date(timeIntervalSince1970: TimeInterval(Alarm.instantSeconds(forLocal: s + 86400, in: zone))), false
            )
        case .local(let s):
            return (Date(timeIntervalSince1970: TimeInterval(Alarm.instantSeconds(forLocal: s, in: zone))), true)
        case .instant(let t): return (t, true)
        }
    }

    /// The bound's date in `zone` (days since 1970-01-01): the anchor of calendar intervals.
    func day(in zone: Zone) -> Int64 {
        switch self {
        case .day(let s), .local(let s): return floorDiv(s, 86400)
        case .instant(let t): return Alarm.localDay(t, zone)
        }
    }

    /// How a person reads it: `2026-12-01`, `2026-12-01 06:30`, or the instant in `zone`.
    public func spoken(in zone: Zone) -> String {
        switch self {
        case .day(let s): return CivilTime(localSeconds: s).date
        case .local(let s):
            let c = CivilTime(localSeconds: s)
            return c.date + " " + c.hourMinute + (c.second != 0 ? ":" + Text.zeroPadded(c.second, 2) : "")
        case .instant(let t): return RFC3339.format(t, in: zone)
        }
    }
}

/// `alarm pause`: a vacation. Occurrences while it lasts are recorded as `paused`, never rung.
public enum Pause: Hashable, Sendable {
    /// Until `alarm resume`.
    case indefinitely
    /// Until this bound starts (a day: its midnight) in the alarm's zone; occurrences from then on ring.
    case until(ScheduleBound)
}
