/// A wall-clock date and time with no zone attached: what a clock on the wall shows.
///
/// Arithmetic is proleptic Gregorian on plain integers, so it needs no Foundation calendar and
/// behaves the same in every zone. `Comparable` orders civil times as the wall clock reads them.
public struct CivilTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// The civil time `seconds` after 1970-01-01 00:00:00 on the same wall clock.
    public init(localSeconds seconds: Int64) {
        let days = floorDiv(seconds, 86_400)
        let rest = Int(seconds - days * 86_400)
        let (y, m, d) = CivilTime.civil(fromDays: days)
        self.init(year: y, month: m, day: d, hour: rest / 3600, minute: rest % 3600 / 60, second: rest % 60)
    }

    /// Seconds since 1970-01-01 00:00:00 on the same wall clock (a "local epoch", not an instant).
    public var localSeconds: Int64 {
        CivilTime.days(year: year, month: month, day: day) * 86_400
            + Int64(hour * 3600 + minute * 60 + second)
    }

    /// 0 = Monday ... 6 = Sunday (ISO order, as systemd prints weekdays).
    public var weekday: Int { CivilTime.weekday(ofDays: CivilTime.days(year: year, month: month, day: day)) }

    public static func < (a: CivilTime, b: CivilTime) -> Bool {
        (a.year, a.month, a.day, a.hour, a.minute, a.second) < (b.year, b.month, b.day, b.hour, b.minute, b.second)
    }

    public var description: String { "\(date)T\(hourMinute):\(Self.pad(second, 2))" }

    /// `2026-12-24`.
    public var date: String { "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2))" }

    /// `06:30`.
    public var hourMinute: String { "\(Self.pad(hour, 2)):\(Self.pad(minute, 2))" }

    /// `Mon` ... `Sun`, as systemd and `date +%a` in the C locale print them.
    public var weekdayName: String { CalendarExpression.weekdayNames[weekday] }

    private static func pad(_ v: Int, _ w: Int) -> String {
        let s = String(v)
        return String(repeating: "0", count: max(0, w - s.count)) + s
    }

    public static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 (H. Hinnant's `days_from_civil`).
    public static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The inverse of `days(year:month:day:)`.
    public static func civil(fromDays z0: Int64) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return (Int(y), Int(m), Int(d))
    }

    static func weekday(ofDays days: Int64) -> Int {
        // 1970-01-01 was a Thursday (3 with Monday = 0).
        Int(((days % 7) + 7 + 3) % 7)
    }
}

@inline(__always)
func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}
