/// A POSIX TZ rule such as `EST5EDT,M3.2.0,M11.1.0` or `<+1030>-10:30<+11>-11,M10.1.0,M4.1.0`:
/// what a TZif footer says for instants after the file's last transition, and what `TZ` may hold.
///
/// Accepts the RFC 8536 (TZif v3) extensions: transition times from -167 to 167 hours and names
/// quoted in `<...>`. Offsets here are seconds *east* of Greenwich (POSIX writes them west:
/// `EST5` is UTC-5, stored as -18000). Evaluation is plain integer arithmetic on the year, so the
/// rule answers for any year without a table.
public struct PosixTZRule: Hashable, Sendable, CustomStringConvertible {
    /// One zone state: standard or daylight time.
    public struct Period: Hashable, Sendable {
        public var abbreviation: String
        public var offset: Int
    }

    /// A day in a year: `Jn` (1...365, February 29 never counted), `n` (0...365, counted),
    /// or `Mm.w.d` (weekday `d`, 0 = Sunday, of week `w`, 5 = the last, of month `m`).
    public enum Day: Hashable, Sendable {
        case julianNoLeap(Int)
        case zeroBased(Int)
        case monthWeekDay(month: Int, week: Int, weekday: Int)
    }

    /// When a change happens: on `day` at `time` seconds after midnight of the wall clock in force
    /// before the change (which may be negative or more than a day: v3's extended hours).
    public struct Change: Hashable, Sendable {
        public var day: Day
        public var time: Int
    }

    public var text: String
    public var standard: Period
    /// Nil for a rule without daylight time: the offset never changes.
    public var daylight: Period?
    /// When daylight time starts and ends; nil exactly when `daylight` is nil.
    public var start: Change?
    public var end: Change?

    public var description: String { text }

    /// Parses a TZ string; the error says what is wrong where.
    public init(_ text: String) throws {
        var p = PosixTZParser(text)
        self = try p.parse()
    }

    init(text: String, standard: Period, daylight: Period?, start: Change?, end: Change?) {
        self.text = text
        self.standard = standard
        self.daylight = daylight
        self.start = start
        self.end = end
    }

    // MARK: evaluation

    /// The period in force at `t` (Unix seconds).
    public func period(atUnix t: Int64) -> Period {
        guard let daylight else { return standard }
        return isDaylight(atUnix: t) ? daylight : standard
    }

    /// Whether daylight time is in force at `t`. Events from the year before to the year after
    /// are merged in time order, so rules whose changes spill across New Year (extended hours,
    /// southern-hemisphere summers, `0/0,J365/25` all-year daylight time) need no special case.
    public func isDaylight(atUnix t: Int64) -> Bool {
        guard daylight != nil else { return false }
        let year = CivilTime.civil(fromDays: floorDiv(t + Int64(standard.offset), 86_400)).0
        var bestTime = Int64.min
        var bestIsDST = false
        for y in (year - 1)...(year + 1) {
            let (on, off) = changes(year: y)
            // At equal instants the end comes first, so a start at the same instant wins.
            if off <= t && (off > bestTime) { (bestTime, bestIsDST) = (off, false) }
            if on <= t && (on > bestTime || on == bestTime) { (bestTime, bestIsDST) = (on, true) }
        }
        if bestTime == .min {
            // Before anything in the window: the state after the year before's last event.
            let (on, off) = changes(year: year - 2)
            return on > off
        }
        return bestIsDST
    }

    /// The Unix instants at which daylight time starts and ends in `year`; (max, max) for a rule
    /// without daylight time.
    public func changes(year: Int) -> (start: Int64, end: Int64) {
        guard let daylight, let start, let end else { return (.max, .max) }
        let on = Self.localSeconds(start, year: year) - Int64(standard.offset)
        let off = Self.localSeconds(end, year: year) - Int64(daylight.offset)
        return (on, off)
    }

    /// The first instant strictly after `t` at which the UTC offset changes; nil when it never
    /// does (no daylight time, or daylight time with the same offset, or all year).
    public func nextChange(afterUnix t: Int64) -> Int64? {
        guard let daylight, daylight.offset != standard.offset else { return nil }
        let year = CivilTime.civil(fromDays: floorDiv(t + Int64(standard.offset), 86_400)).0
        var best = Int64.max
        for y in (year - 1)...(year + 2) {
            let (on, off) = changes(year: y)
            for c in [on, off] where c > t && c < best && isDaylight(atUnix: c - 1) != isDaylight(atUnix: c) {
                best = c
            }
        }
        return best == .max ? nil : best
    }

    /// Seconds from 1970-01-01 00:00 on the wall clock to `change` in `year`.
    static func localSeconds(_ change: Change, year: Int) -> Int64 {
        day(change.day, year: year) * 86_400 + Int64(change.time)
    }

    /// Days since 1970-01-01 of `day` in `year`.
    static func day(_ day: Day, year: Int) -> Int64 {
        let jan1 = CivilTime.days(year: year, month: 1, day: 1)
        switch day {
        case .julianNoLeap(let n):
            return jan1 + Int64(n - 1) + (CivilTime.isLeap(year) && n >= 60 ? 1 : 0)
        case .zeroBased(let n):
            return jan1 + Int64(n)
        case .monthWeekDay(let month, let week, let weekday):
            let first = CivilTime.days(year: year, month: month, day: 1)
            let firstWeekday = Int(((first % 7) + 7 + 4) % 7)  // 0 = Sunday; 1970-01-01 was a Thursday
            var d = first + Int64((weekday - firstWeekday + 7) % 7 + 7 * (week - 1))
            let last = first + Int64(CivilTime.daysIn(month: month, year: year)) - 1
            while d > last { d -= 7 }
            return d
        }
    }
}

/// An error in a TZ string, with where it is.
public struct PosixTZError: Error, Equatable, CustomStringConvertible {
    public var text: String
    public var message: String
    public var description: String { "invalid TZ rule '\(text)': \(message)" }
}

/// The grammar: `std offset [dst [offset] [,start[/time],end[/time]]]`.
struct PosixTZParser {
    let text: String
    let s: [UInt8]
    var i = 0

    init(_ text: String) {
        self.text = text
        self.s = Array(text.utf8)
    }

    mutating func parse() throws -> PosixTZRule {
        let stdName = try name("standard time name")
        let stdOffset = -(try hms("standard time offset", maxHours: 24, signed: true))
        var daylight: PosixTZRule.Period?
        var start: PosixTZRule.Change?
        var end: PosixTZRule.Change?
        if i < s.count {
            let dstName = try name("daylight time name")
            var dstOffset = stdOffset + 3600
            if i < s.count, s[i] != UInt8(ascii: ",") {
                dstOffset = -(try hms("daylight time offset", maxHours: 24, signed: true))
            }
            daylight = .init(abbreviation: dstName, offset: dstOffset)
            if i < s.count {
                try expect(",", "a ',' before the start of daylight time")
                start = try change("start of daylight time")
                try expect(",", "a ',' between the start and the end of daylight time")
                end = try change("end of daylight time")
            } else {
                // POSIX leaves the default to the implementation; this is the US rule glibc uses.
                start = .init(day: .monthWeekDay(month: 3, week: 2, weekday: 0), time: 7200)
                end = .init(day: .monthWeekDay(month: 11, week: 1, weekday: 0), time: 7200)
            }
        }
        guard i == s.count else { throw fail("unexpected '\(rest)'") }
        return PosixTZRule(
            text: text, standard: .init(abbreviation: stdName, offset: stdOffset), daylight: daylight,
            start: start, end: end)
    }

    var rest: String { String(decoding: s[min(i, s.count)...], as: UTF8.self) }

    func fail(_ message: String) -> PosixTZError {
        PosixTZError(text: text, message: message + " at offset \(i)")
    }

    mutating func expect(_ c: Character, _ what: String) throws {
        guard i < s.count, s[i] == c.asciiValue! else { throw fail("expected \(what)") }
        i += 1
    }

    /// `EST` (letters) or `<+0530>` (letters, digits, `+`, `-` between angle brackets).
    mutating func name(_ what: String) throws -> String {
        func isLetter(_ c: UInt8) -> Bool { (c | 0x20) >= 97 && (c | 0x20) <= 122 }
        let begin = i
        if i < s.count, s[i] == UInt8(ascii: "<") {
            i += 1
            let inner = i
            while i < s.count, s[i] != UInt8(ascii: ">") {
                let c = s[i]
                guard isLetter(c) || (c >= 48 && c <= 57) || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") else {
                    throw fail("a \(what) in <...> may hold only letters, digits, '+' and '-'")
                }
                i += 1
            }
            guard i < s.count else { throw fail("the \(what) has no closing '>'") }
            let value = String(decoding: s[inner..<i], as: UTF8.self)
            i += 1
            guard !value.isEmpty else { throw fail("empty \(what)") }
            return value
        }
        while i < s.count, isLetter(s[i]) { i += 1 }
        guard i > begin else { throw fail("expected a \(what) (letters, or <...>)") }
        return String(decoding: s[begin..<i], as: UTF8.self)
    }

    /// `[+-]hh[:mm[:ss]]` as seconds; hours up to `maxHours`.
    mutating func hms(_ what: String, maxHours: Int, signed: Bool) throws -> Int {
        var sign = 1
        if signed, i < s.count, s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") {
            sign = s[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
        }
        func number(max digits: Int) -> Int? {
            var v = 0
            var n = 0
            while i < s.count, n < digits, s[i] >= 48, s[i] <= 57 {
                v = v * 10 + Int(s[i] - 48)
                i += 1
                n += 1
            }
            return n == 0 ? nil : v
        }
        guard let h = number(max: 3), h <= maxHours else { throw fail("expected the \(what) as hours 0...\(maxHours)") }
        var total = h * 3600
        if i < s.count, s[i] == UInt8(ascii: ":") {
            i += 1
            guard let m = number(max: 2), m < 60 else { throw fail("expected minutes 00...59 in the \(what)") }
            total += m * 60
            if i < s.count, s[i] == UInt8(ascii: ":") {
                i += 1
                guard let sec = number(max: 2), sec < 60 else { throw fail("expected seconds 00...59 in the \(what)") }
                total += sec
            }
        }
        return sign * total
    }

    /// `Jn`, `n` or `Mm.w.d`, then `/time` (default 02:00).
    mutating func change(_ what: String) throws -> PosixTZRule.Change {
        func number() -> Int? {
            var v = 0
            var n = 0
            while i < s.count, n < 4, s[i] >= 48, s[i] <= 57 {
                v = v * 10 + Int(s[i] - 48)
                i += 1
                n += 1
            }
            return n == 0 ? nil : v
        }
        let day: PosixTZRule.Day
        if i < s.count, s[i] == UInt8(ascii: "J") {
            i += 1
            guard let n = number(), (1...365).contains(n) else { throw fail("the \(what) 'Jn' needs n in 1...365") }
            day = .julianNoLeap(n)
        } else if i < s.count, s[i] == UInt8(ascii: "M") {
            i += 1
            guard let m = number(), (1...12).contains(m) else { throw fail("the \(what) 'Mm.w.d' needs m in 1...12") }
            try expect(".", "'.' after the month of the \(what)")
            guard let w = number(), (1...5).contains(w) else { throw fail("the \(what) 'Mm.w.d' needs w in 1...5") }
            try expect(".", "'.' after the week of the \(what)")
            guard let d = number(), (0...6).contains(d) else { throw fail("the \(what) 'Mm.w.d' needs d in 0...6") }
            day = .monthWeekDay(month: m, week: w, weekday: d)
        } else {
            guard let n = number(), (0...365).contains(n) else {
                throw fail("expected the \(what) as Jn, n or Mm.w.d")
            }
            day = .zeroBased(n)
        }
        var time = 7200
        if i < s.count, s[i] == UInt8(ascii: "/") {
            i += 1
            time = try hms("time of the \(what)", maxHours: 167, signed: true)
        }
        return .init(day: day, time: time)
    }
}
