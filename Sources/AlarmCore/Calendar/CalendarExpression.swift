import FoundationEssentials

/// A calendar event in systemd.time(7) syntax:
/// `[WEEKDAYS] [[YEAR-]MONTH(-|~)DAY] [HOUR:MINUTE[:SECOND]] [ZONE]`, or a shortcut (`daily` ...).
///
/// Each component keeps what was written, normalised as systemd normalises it (`CalendarComponent`),
/// so `description` prints systemd's normalized form (`Mon..Fri *-*-* 06:30:00`), which parses
/// back to an equal value; and the values each allows, for matching. An instant matches when each
/// of its wall-clock components is allowed (weekdays and date both, when both are given). Two
/// expressions are equal when their normal forms are: `1,2,3:00` and `1..3:00` match the same
/// instants but are different expressions, as they are for systemd.
public struct CalendarExpression: Hashable, Sendable, CustomStringConvertible {
    /// 0 = Monday ... 6 = Sunday; all seven when no weekday was given.
    public private(set) var weekdays: ValueSet
    public private(set) var years: CalendarComponent
    public private(set) var months: CalendarComponent
    /// Days of the month; with `endOfMonth`, counted back from the month's end (1 = the last day).
    public private(set) var days: CalendarComponent
    /// `~` between month and day: `*-*~01` is the last day of every month.
    public private(set) var endOfMonth: Bool
    public private(set) var hours: CalendarComponent
    public private(set) var minutes: CalendarComponent
    public private(set) var seconds: CalendarComponent
    /// A pinned IANA zone (canonical spelling), or nil for the wall clock of the system zone.
    public var zone: String?

    public static let yearRange = 1970...2199
    static let monthRange = 1...12
    static let dayRange = 1...31
    static let hourRange = 0...23
    static let minuteRange = 0...59
    static let weekdayRange = 0...6

    /// Components already normalised and valid (the parser's job).
    init(
        weekdays: ValueSet = .all(0...6), years: CalendarComponent = .all(yearRange),
        months: CalendarComponent = .all(monthRange),
        days: CalendarComponent = .all(dayRange), endOfMonth: Bool = false, hours: CalendarComponent,
        minutes: CalendarComponent, seconds: CalendarComponent, zone: String? = nil
    ) {
        self.weekdays = weekdays
        self.years = years
        self.months = months
        self.days = days
        self.endOfMonth = endOfMonth && !days.isAll
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
        self.zone = zone
    }

    /// Parses `text`; throws `ExpressionError` saying what is wrong and where.
    public init(_ text: String) throws {
        if let plain = ExpressionParser.normalForm(text) {
            self = plain
            return
        }
        self = try ExpressionParser(text).parse()
    }

    /// True when the expression can match at most one wall time (a fully dated expression):
    /// such an alarm rings once by nature.
    public var isSingleOccurrence: Bool {
        years.isSingle && months.isSingle && days.isSingle && hours.isSingle && minutes.isSingle && seconds.isSingle
    }

    /// The days of a month of `length` days this expression allows.
    @inline(__always)
    func daySet(monthLength length: Int) -> ValueSet {
        guard endOfMonth else { return days.values }
        var out = ValueSet()
        var bits = days.values.bits
        while bits != 0 {
            let counted = bits.trailingZeroBitCount
            out.insert(length + 1 - counted)
            bits &= bits - 1
        }
        return out
    }

    public var description: String { print(withZone: true) }

    /// systemd's normalized form: `Mon..Fri *-*-* 06:30:00 Europe/Berlin`.
    public func print(withZone: Bool) -> String {
        var out: [UInt8] = []
        write(withZone: withZone, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `print`, appended to `out` as UTF-8 (the alarm list writer's way: no String per alarm).
    public func write<Sink: ByteSink & ~Copyable>(withZone: Bool, into out: inout Sink) {
        if !weekdays.isAll(Self.weekdayRange) {
            Self.writeWeekdays(weekdays, into: &out)
            out.append(UInt8(ascii: " "))
        }
        years.write(width: 4, into: &out)
        out.append(UInt8(ascii: "-"))
        months.write(width: 2, into: &out)
        out.append(endOfMonth ? UInt8(ascii: "~") : UInt8(ascii: "-"))
        days.write(width: 2, into: &out)
        out.append(UInt8(ascii: " "))
        hours.write(width: 2, into: &out)
        out.append(UInt8(ascii: ":"))
        minutes.write(width: 2, into: &out)
        out.append(UInt8(ascii: ":"))
        seconds.write(width: 2, into: &out)
        if withZone, let zone {
            out.append(UInt8(ascii: " "))
            out.append(utf8: zone)
        }
    }

    /// The date part of the normal form, `*-12-25`.
    var datePart: String {
        years.print(width: 4) + "-" + months.print(width: 2) + (endOfMonth ? "~" : "-") + days.print(width: 2)
    }

    static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// Runs of three days or more as `Mon..Wed`, shorter ones listed: `Mon,Tue,Thu..Sun`.
    static func printWeekdays(_ set: ValueSet) -> String {
        var out: [UInt8] = []
        writeWeekdays(set, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static let weekdayBytes: [StaticString] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// `printWeekdays`, appended to `out` (the days walked bit by bit: no array of runs).
    static func writeWeekdays<Sink: ByteSink & ~Copyable>(_ set: ValueSet, into out: inout Sink) {
        var day = 0
        var first = true
        while let start = set.next(atLeast: day), start <= 6 {
            var end = start
            while end < 6 && set.contains(end + 1) { end += 1 }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(weekdayBytes[start])
            switch end - start {
            case 0: break
            case 1:
                out.append(UInt8(ascii: ","))
                out.append(weekdayBytes[end])
            default:
                out.append("..")
                out.append(weekdayBytes[end])
            }
            day = end + 1
        }
    }
}

/// A set of small non-negative integers (0...63): one component's allowed values.
public struct ValueSet: Hashable, Sendable {
    public private(set) var bits: UInt64

    public init() { bits = 0 }
    public init(_ values: some Sequence<Int>) {
        bits = 0
        for v in values { insert(v) }
    }
    public static func all(_ range: ClosedRange<Int>) -> ValueSet { ValueSet(range) }

    public mutating func insert(_ v: Int) {
        precondition(v >= 0 && v < 64)
        bits |= 1 << UInt64(v)
    }
    public func contains(_ v: Int) -> Bool { v >= 0 && v < 64 && bits & (1 << UInt64(v)) != 0 }
    public var count: Int { bits.nonzeroBitCount }
    public var isEmpty: Bool { bits == 0 }
    public var values: [Int] { (0..<64).filter { contains($0) } }
    public var min: Int? { bits == 0 ? nil : bits.trailingZeroBitCount }

    /// The smallest value >= v, if any.
    public func next(atLeast v: Int) -> Int? {
        guard v < 64 else { return nil }
        let masked = bits & (v <= 0 ? ~0 : ~((1 << UInt64(v)) - 1))
        return masked == 0 ? nil : masked.trailingZeroBitCount
    }

    func isAll(_ range: ClosedRange<Int>) -> Bool { self == .all(range) }

    func runs() -> [ClosedRange<Int>] {
        var out: [ClosedRange<Int>] = []
        for v in values {
            if let last = out.last, last.upperBound + 1 == v {
                out[out.count - 1] = last.lowerBound...v
            } else {
                out.append(v...v)
            }
        }
        return out
    }
}

/// Why an expression was refused: what is wrong, and where (1-based column in the input).
public struct ExpressionError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public var expression: String
    public var column: Int?

    public var description: String {
        if let column {
            return "invalid calendar expression '\(Self.printable(expression))': \(message) (at column \(column))"
        }
        return "invalid calendar expression '\(Self.printable(expression))': \(message)"
    }

    /// The expression as a message can show it, on one line: control characters escaped as
    /// Swift writes them (`\t`, `\n`, `\r`, `\u{1B}`).
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return text }
        return Text.escaping(text) { scalar in
            switch scalar {
            case "\t": "\\t"
            case "\n": "\\n"
            case "\r": "\\r"
            case _ where scalar.properties.generalCategory == .control:
                "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: nil
            }
        }
    }
}
