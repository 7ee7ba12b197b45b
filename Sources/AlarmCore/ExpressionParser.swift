/// Parses the calendar-expression grammar into a `CalendarExpression`.
///
/// Grammar (case-insensitive), a subset of systemd.time(7):
///
///     expr     := shortcut TIME [ZONE] | [WEEKDAYS] [DATE] TIME [ZONE]
///     shortcut := daily | weekdays | weekends
///     WEEKDAYS := wd ("," wd)*        wd := NAME | NAME ".." NAME
///     DATE     := [YEAR "-"] MONTH "-" DAY
///     TIME     := HOUR ":" MINUTE [":" SECOND]
///     each numeric component := item ("," item)*
///     item     := "*" | N | N ".." M | N "/" STEP | N ".." M "/" STEP | "*/" STEP
struct ExpressionParser {
    let text: String
    private var tokens: [(text: Substring, column: Int)] = []

    init(_ text: String) {
        self.text = text
        // ASCII without CR (a CR LF pair is one Character): bytes are Characters, so columns
        // are byte offsets, and the split needs no grapheme breaking (a store holds 10,000).
        if text.utf8.allSatisfy({ $0 < 0x80 && $0 != 0x0D }) {
            var start: String.Index? = nil
            var startColumn = 1
            var column = 1
            var i = text.startIndex
            for b in text.utf8 {
                // Character.isWhitespace for ASCII: tab, LF, VT, FF, space (CR excluded above).
                let blank = b == 0x20 || (b >= 0x09 && b <= 0x0C)
                if blank {
                    if let st = start {
                        tokens.append((text[st..<i], startColumn))
                        start = nil
                    }
                } else if start == nil {
                    start = i
                    startColumn = column
                }
                i = text.utf8.index(after: i)
                column += 1
            }
            if let st = start { tokens.append((text[st...], startColumn)) }
            return
        }
        var col = 1
        var current: Substring? = nil
        var start = 1
        var startIndex = text.startIndex
        for (i, ch) in zip(text.indices, text) {
            if ch.isWhitespace {
                if current != nil {
                    tokens.append((text[startIndex..<i], start))
                    current = nil
                }
            } else if current == nil {
                current = ""
                start = col
                startIndex = i
            }
            col += 1
        }
        if current != nil { tokens.append((text[startIndex...], start)) }
    }

    private func fail(_ message: String, _ column: Int? = nil) -> ExpressionError {
        ExpressionError(message: message, expression: text, column: column)
    }

    func parse() throws -> CalendarExpression {
        guard !tokens.isEmpty else { throw fail("the expression is empty; write e.g. 'Mon..Fri 06:30'") }
        guard text.count <= 256 else { throw fail("the expression is longer than 256 characters") }
        var i = 0
        var weekdays = ValueSet.all(CalendarExpression.weekdayRange)
        var years: [Int]? = nil
        var months = ValueSet.all(CalendarExpression.monthRange)
        var days = ValueSet.all(CalendarExpression.dayRange)

        let first = tokens[0]
        let firstLower = first.text.lowercased()
        switch firstLower {
        case "daily": i = 1
        case "weekdays": weekdays = ValueSet(0...4); i = 1
        case "weekends": weekdays = ValueSet([5, 6]); i = 1
        default:
            if let c = first.text.first, c.isLetter {
                weekdays = try parseWeekdays(first.text, column: first.column)
                i = 1
            }
        }
        let hasShortcut = ["daily", "weekdays", "weekends"].contains(firstLower)

        guard i < tokens.count else {
            throw fail("a time of day is missing: add HH:MM, e.g. '\(text) 07:00'", text.count + 1)
        }
        // Bytes searched: `contains(":")` on a Substring goes through Foundation's range(of:).
        if !tokens[i].text.utf8.contains(UInt8(ascii: ":")) && tokens[i].text.utf8.contains(UInt8(ascii: "-")) {
            guard i + 1 < tokens.count else {
                throw fail("a time of day is missing: add HH:MM, e.g. '\(text) 07:00'", text.count + 1)
            }
            if hasShortcut {
                throw fail("'\(first.text)' takes a time only, not a date", tokens[i].column)
            }
            (years, months, days) = try parseDate(tokens[i].text, column: tokens[i].column)
            i += 1
        }
        guard i < tokens.count else {
            throw fail("a time of day is missing: add HH:MM, e.g. '\(text) 07:00'", text.count + 1)
        }
        let timeToken = tokens[i]
        guard timeToken.text.utf8.contains(UInt8(ascii: ":")) else {
            throw fail("expected a time HH:MM[:SS] here, found '\(timeToken.text)'", timeToken.column)
        }
        let (hours, minutes, seconds) = try parseTime(timeToken.text, column: timeToken.column)
        i += 1

        var zone: String? = nil
        if i < tokens.count {
            let z = tokens[i]
            do {
                zone = try Zones.canonicalName(String(z.text))
            } catch {
                throw fail("unknown time zone '\(z.text)': use an IANA name such as Europe/Berlin, or UTC", z.column)
            }
            i += 1
        }
        if i < tokens.count {
            throw fail("unexpected '\(tokens[i].text)' after the \(zone == nil ? "time" : "zone")", tokens[i].column)
        }

        let expr = CalendarExpression(
            years: years, months: months, days: days, hours: hours, minutes: minutes, seconds: seconds,
            weekdays: weekdays, zone: zone)
        if let why = Schedule.whyNeverMatches(expr) { throw fail(why) }
        return expr
    }

    // MARK: components

    private func parseWeekdays(_ token: Substring, column: Int) throws -> ValueSet {
        var set = ValueSet()
        var col = column
        for item in token.split(separator: ",", omittingEmptySubsequences: false) {
            if let r = Self.dots(in: item) {
                let a = try weekday(item[..<r.lowerBound], column: col)
                let b = try weekday(item[r.upperBound...], column: col + item.distance(from: item.startIndex, to: r.upperBound))
                // Ranges may wrap around the week: Fri..Mon is Fri, Sat, Sun, Mon.
                var d = a
                while true {
                    set.insert(d)
                    if d == b { break }
                    d = (d + 1) % 7
                }
            } else {
                set.insert(try weekday(item, column: col))
            }
            col += item.count + 1
        }
        return set
    }

    private static let weekdayNames: [String: Int] = {
        let names = [
            ["mon", "monday"], ["tue", "tues", "tuesday"], ["wed", "wednesday"], ["thu", "thur", "thurs", "thursday"],
            ["fri", "friday"], ["sat", "saturday"], ["sun", "sunday"],
        ]
        var map: [String: Int] = [:]
        for (i, group) in names.enumerated() { for n in group { map[n] = i } }
        return map
    }()

    private func weekday(_ s: Substring, column: Int) throws -> Int {
        guard let d = Self.weekdayNames[s.lowercased()] else {
            if s.isEmpty { throw fail("a weekday is missing in a list or range", column) }
            throw fail("unknown weekday '\(s)': use Mon..Sun or full names", column)
        }
        return d
    }

    private func parseDate(_ token: Substring, column: Int) throws -> ([Int]?, ValueSet, ValueSet) {
        let parts = token.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3 else {
            throw fail("a date is [YEAR-]MONTH-DAY, found '\(token)'", column)
        }
        var col = column
        var years: [Int]? = nil
        if parts.count == 3 {
            if parts[0] != "*" {
                let set = try component(parts[0], "year", CalendarExpression.yearRange, column: col)
                years = set.count == CalendarExpression.yearRange.count ? nil : set
            }
            col += parts[0].count + 1
        }
        let months = ValueSet(try component(parts[parts.count - 2], "month", CalendarExpression.monthRange, column: col))
        col += parts[parts.count - 2].count + 1
        let days = ValueSet(try component(parts[parts.count - 1], "day", CalendarExpression.dayRange, column: col))
        return (years, months, days)
    }

    private func parseTime(_ token: Substring, column: Int) throws -> (ValueSet, ValueSet, ValueSet) {
        let parts = token.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3 else {
            throw fail("a time is HOUR:MINUTE[:SECOND], found '\(token)'", column)
        }
        var col = column
        let hours = ValueSet(try component(parts[0], "hour", CalendarExpression.hourRange, column: col))
        col += parts[0].count + 1
        let minutes = ValueSet(try component(parts[1], "minute", CalendarExpression.minuteRange, column: col))
        col += parts[1].count + 1
        let seconds =
            parts.count == 3
            ? ValueSet(try component(parts[2], "second", CalendarExpression.minuteRange, column: col)) : ValueSet([0])
        return (hours, minutes, seconds)
    }

    /// One numeric component: a comma list of `*`, `N`, `N..M`, `N/S`, `N..M/S`, `*/S`.
    private func component(_ s: Substring, _ name: String, _ range: ClosedRange<Int>, column: Int) throws -> [Int] {
        guard !s.isEmpty else { throw fail("the \(name) is missing", column) }
        if s == "*" { return Array(range) }
        // The usual case, one plain number ("06"): no lists, no membership table.
        if let v = Self.plainNumber(s), range.contains(v) { return [v] }
        // Membership over the component's range (at most 230 years): no hashing, already sorted.
        var member = [Bool](repeating: false, count: range.count)
        var col = column
        for item in s.split(separator: ",", omittingEmptySubsequences: false) {
            guard !item.isEmpty else { throw fail("an empty item in the \(name) list '\(s)'", col) }
            var body = item
            var step = 1
            if let slash = item.firstIndex(of: "/") {
                body = item[..<slash]
                let stepText = item[item.index(after: slash)...]
                guard let st = Int(stepText), st >= 1, stepText.allSatisfy(\.isASCII) else {
                    throw fail("the \(name) step '\(stepText)' must be a whole number of at least 1", col)
                }
                step = st
            }
            var lo: Int
            var hi: Int
            if body == "*" {
                (lo, hi) = (range.lowerBound, range.upperBound)
            } else if let r = Self.dots(in: body) {
                lo = try number(body[..<r.lowerBound], name, range, column: col)
                hi = try number(body[r.upperBound...], name, range, column: col)
                guard lo <= hi else { throw fail("the \(name) range '\(body)' runs backwards", col) }
            } else {
                lo = try number(body, name, range, column: col)
                // N/STEP repeats up to the component's maximum; a plain N is just N.
                hi = item.utf8.contains(UInt8(ascii: "/")) ? range.upperBound : lo
            }
            var v = lo
            while v <= hi {
                member[v - range.lowerBound] = true
                v += step
            }
            col += item.count + 1
        }
        return member.indices.filter { member[$0] }.map { $0 + range.lowerBound }
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

    /// `s` as a number when it is 1...4 ASCII digits, else nil.
    static func plainNumber(_ s: Substring) -> Int? {
        let u = s.utf8
        guard !u.isEmpty, u.count <= 4 else { return nil }
        var v = 0
        for b in u {
            guard b >= 0x30 && b <= 0x39 else { return nil }
            v = v * 10 + Int(b - 0x30)
        }
        return v
    }

    private func number(_ s: Substring, _ name: String, _ range: ClosedRange<Int>, column: Int) throws -> Int {
        // ASCII digits only (a Character that is ASCII and a number is one digit byte).
        guard let v = Self.plainNumber(s) else {
            throw fail("the \(name) '\(s)' is not a number", column)
        }
        guard range.contains(v) else {
            throw fail("the \(name) \(s) is out of range \(range.lowerBound)..\(range.upperBound)", column)
        }
        return v
    }
}
