import FoundationEssentials

/// A calendar event in a subset of systemd.time(7) syntax:
/// `[WEEKDAYS] [[YEAR-]MONTH-DAY] HOUR:MINUTE[:SECOND] [ZONE]`.
///
/// Every component is a set of allowed values; an instant matches when each of its wall-clock
/// components is in its set (weekdays and date both, when both are given). The value is fully
/// normalised: two expressions that match the same wall times compare equal, and `description`
/// prints a normal form that parses back to an equal value.
public struct CalendarExpression: Hashable, Sendable, CustomStringConvertible {
    /// Allowed years, sorted; nil means every year.
    public var years: [Int]?
    public var months: ValueSet
    public var days: ValueSet
    public var hours: ValueSet
    public var minutes: ValueSet
    public var seconds: ValueSet
    /// 0 = Monday ... 6 = Sunday.
    public var weekdays: ValueSet
    /// A pinned IANA zone (canonical spelling), or nil for the wall clock of the system zone.
    public var zone: String?

    public static let yearRange = 1970...2199
    static let monthRange = 1...12
    static let dayRange = 1...31
    static let hourRange = 0...23
    static let minuteRange = 0...59
    static let weekdayRange = 0...6

    public init(
        years: [Int]? = nil, months: ValueSet = .all(1...12), days: ValueSet = .all(1...31),
        hours: ValueSet, minutes: ValueSet, seconds: ValueSet = ValueSet([0]),
        weekdays: ValueSet = .all(0...6), zone: String? = nil
    ) {
        self.years = years
        self.months = months
        self.days = days
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
        self.weekdays = weekdays
        self.zone = zone
    }

    /// Parses `text`; throws `ExpressionError` saying what is wrong and where.
    public init(_ text: String) throws {
        self = try ExpressionParser(text).parse()
    }

    /// True when the expression can match at most one wall time (a fully dated expression):
    /// such an alarm rings once by nature.
    public var isSingleOccurrence: Bool {
        years?.count == 1 && months.count == 1 && days.count == 1 && hours.count == 1
            && minutes.count == 1 && seconds.count == 1
    }

    public var description: String { print(withZone: true) }

    /// The normal form: `Mon..Fri *-*-* 06:30:00 Europe/Berlin`.
    public func print(withZone: Bool) -> String {
        var parts: [String] = []
        if !weekdays.isAll(Self.weekdayRange) { parts.append(Self.printWeekdays(weekdays)) }
        let y = years.map { Self.printYears($0) } ?? "*"
        parts.append("\(y)-\(months.print(Self.monthRange, width: 2))-\(days.print(Self.dayRange, width: 2))")
        parts.append(
            "\(hours.print(Self.hourRange, width: 2)):\(minutes.print(Self.minuteRange, width: 2)):\(seconds.print(Self.minuteRange, width: 2))"
        )
        if withZone, let zone { parts.append(zone) }
        return parts.joined(separator: " ")
    }

    static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    static func printWeekdays(_ set: ValueSet) -> String {
        set.runs().map { run in
            switch run.count {
            case 1: return weekdayNames[run.lowerBound]
            case 2: return "\(weekdayNames[run.lowerBound]),\(weekdayNames[run.upperBound])"
            default: return "\(weekdayNames[run.lowerBound])..\(weekdayNames[run.upperBound])"
            }
        }.joined(separator: ",")
    }

    static func printYears(_ years: [Int]) -> String {
        var out: [String] = []
        var i = 0
        while i < years.count {
            var j = i
            while j + 1 < years.count && years[j + 1] == years[j] + 1 { j += 1 }
            if j - i >= 2 {
                out.append("\(years[i])..\(years[j])")
            } else {
                for k in i...j { out.append("\(years[k])") }
            }
            i = j + 1
        }
        return out.joined(separator: ",")
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

    /// `*`, `N/STEP` for a progression that runs to the top of `range`, else runs and values.
    func print(_ range: ClosedRange<Int>, width: Int) -> String {
        func pad(_ v: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        if isAll(range) { return "*" }
        let vs = values
        if vs.count >= 3 {
            let step = vs[1] - vs[0]
            let isProgression = zip(vs, vs.dropFirst()).allSatisfy { $1 - $0 == step }
            if step > 1 && isProgression && vs.last! + step > range.upperBound {
                return "\(pad(vs[0]))/\(step)"
            }
        }
        return runs().map { run in
            switch run.count {
            case 1: return pad(run.lowerBound)
            case 2: return "\(pad(run.lowerBound)),\(pad(run.upperBound))"
            default: return "\(pad(run.lowerBound))..\(pad(run.upperBound))"
            }
        }.joined(separator: ",")
    }
}

/// Why an expression was refused: what is wrong, and where (1-based column in the input).
public struct ExpressionError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public var expression: String
    public var column: Int?

    public var description: String {
        if let column {
            return "invalid calendar expression '\(expression)': \(message) (at column \(column))"
        }
        return "invalid calendar expression '\(expression)': \(message)"
    }
}
