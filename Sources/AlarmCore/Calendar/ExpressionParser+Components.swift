/// The numeric components of a calendar expression: systemd's chains of `N`, `N..M`, `N/STEP`,
/// `N..M/STEP` (and our `*/STEP`), normalised and checked as systemd does.
extension ExpressionParser {
    /// Which component is parsed: its name in messages and its range.
    enum Field {
        case year, month, day, dayFromEnd, hour, minute, second

        var name: String {
            switch self {
            case .year: return "year"
            case .month: return "month"
            case .day, .dayFromEnd: return "day"
            case .hour: return "hour"
            case .minute: return "minute"
            case .second: return "second"
            }
        }

        var range: ClosedRange<Int> {
            switch self {
            case .year: return CalendarExpression.yearRange
            case .month: return CalendarExpression.monthRange
            case .day, .dayFromEnd: return CalendarExpression.dayRange
            case .hour: return CalendarExpression.hourRange
            case .minute, .second: return CalendarExpression.minuteRange
            }
        }
    }

    private static let allYears = CalendarComponent.all(CalendarExpression.yearRange)

    /// One component: `*`, or a comma list of items.
    func component(_ s: Substring, _ field: Field, column: Int) throws -> CalendarComponent {
        let name = field.name
        let range = field.range
        guard !s.isEmpty else { throw fail("the \(name) is missing", column) }
        if s == "*" { return field == .year ? Self.allYears : .all(range) }
        // The usual case, one plain number ("06"): no lists, no normalising.
        if let v = Self.plainNumber(s), range.contains(v) {
            if field == .year { return CalendarComponent(items: [.init(start: v)], range: range, fromEnd: false) }
            if field != .dayFromEnd || v <= 28 { return .single(v) }
        }
        var items: [CalendarComponent.Item] = []
        var col = column
        for text in s.split(separator: ",", omittingEmptySubsequences: false) {
            items.append(try item(text, field, whole: s, column: col))
            col += text.count + 1
        }
        if field == .year {
            // systemd reads two-digit years: 00..69 are 2000..2069, 70..99 are 1970..1999.
            func fix(_ y: Int) -> Int { y < 70 ? y + 2000 : y < 100 ? y + 1900 : y }
            items = items.map { CalendarComponent.Item(start: fix($0.start), stop: $0.stop.map(fix), step: $0.step) }
        }
        items = CalendarComponent.normalized(items)
        if field == .second && items.contains(CalendarComponent.Item(start: 0, step: 1)) {
            return .all(range)  // every second from 0 on: systemd prints it as `*`
        }
        if let why = CalendarComponent.whyInvalid(items, name: name, range: range, fromEnd: field == .dayFromEnd) {
            throw fail(why, column)
        }
        return CalendarComponent(items: items, range: range, fromEnd: field == .dayFromEnd)
    }

    private func item(_ text: Substring, _ field: Field, whole: Substring, column: Int) throws -> CalendarComponent.Item
    {
        let name = field.name
        guard !text.isEmpty else { throw fail("an empty item in the \(name) list '\(whole)'", column) }
        if text == "*" {
            throw fail("'*' cannot be part of a list: write '*' alone, or the values", column)
        }
        if field == .second, Self.hasDecimalPoint(text) {
            throw fail("fractional seconds ('\(text)') are not supported: alarms ring on whole seconds", column)
        }
        var body = text
        var step = 0
        if let slash = text.firstIndex(of: "/") {
            body = text[..<slash]
            let stepText = text[text.index(after: slash)...]
            guard let st = Self.plainNumber(stepText, limit: Int(Int32.max)), st >= 1 else {
                throw fail("the \(name) step '\(stepText)' must be a whole number of at least 1", column)
            }
            step = st
        }
        if body == "*" {
            // Our extension: `*/STEP` is the lowest value on, as `0/STEP` for minutes.
            guard step > 0 else { throw fail("the \(name) '\(text)' is not a number", column) }
            return .init(start: field == .dayFromEnd ? 28 : field.range.lowerBound, step: step)
        }
        if let r = Self.dots(in: body) {
            let lo = try number(body[..<r.lowerBound], field, column: column)
            let hi = try number(body[r.upperBound...], field, column: column)
            // systemd refuses a second range without a step that holds one value or none.
            if field == .second && step == 0 && lo >= hi {
                throw fail(
                    lo > hi
                        ? "the second range '\(body)' runs backwards"
                        : "the second range '\(body)' holds one second: write \(lo)", column)
            }
            return .init(start: lo, stop: hi, step: step == 0 ? 1 : step)
        }
        return .init(start: try number(body, field, column: column), step: step)
    }

    private func number(_ s: Substring, _ field: Field, column: Int) throws -> Int {
        guard let v = Self.plainNumber(s, limit: Int(Int32.max)) else {
            if let first = s.utf8.first, first >= 0x30 && first <= 0x39, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
            {
                throw fail(
                    "the \(field.name) \(s) is out of range \(field.range.lowerBound)..\(field.range.upperBound)",
                    column)
            }
            throw fail("the \(field.name) '\(s)' is not a number", column)
        }
        return v
    }

    /// A `.` that is not part of `..`: a decimal point.
    static func hasDecimalPoint(_ s: Substring) -> Bool {
        let u = Array(s.utf8)
        for (i, b) in u.enumerated() where b == UInt8(ascii: ".") {
            let prevDot = i > 0 && u[i - 1] == UInt8(ascii: ".")
            let nextDot = i + 1 < u.count && u[i + 1] == UInt8(ascii: ".")
            if !prevDot && !nextDot { return true }
        }
        return false
    }

    /// Where `..` stands in `s` (Foundation's `range(of:)` bridges through NSString: slow).
    static func dots(in s: Substring) -> Range<Substring.Index>? {
        var i = s.startIndex
        while i < s.endIndex {
            let j = s.index(after: i)
            if s[i] == ".", j < s.endIndex, s[j] == "." { return i..<s.index(after: j) }
            i = j
        }
        return nil
    }

    /// `s` as a number when it is ASCII digits only and at most `limit`, else nil.
    static func plainNumber(_ s: Substring, limit: Int = 9999) -> Int? {
        let u = s.utf8
        guard !u.isEmpty else { return nil }
        var v = 0
        for b in u {
            guard b >= 0x30 && b <= 0x39 else { return nil }
            v = v * 10 + Int(b - 0x30)
            if v > limit { return nil }
        }
        return v
    }
}
