/// Parses systemd.time(7) calendar events into a `CalendarExpression`.
///
/// Grammar (names case-insensitive), systemd's, words separated by blanks:
///
///     expr     := SHORTCUT [ZONE] | "daily" TIME [ZONE] | [WEEKDAYS] [DATE] [TIME] [ZONE]
///     SHORTCUT := minutely | hourly | daily | weekly | monthly | quarterly | semiannually
///                 | semi-annually | biannually | bi-annually | yearly | annually | anually
///     WEEKDAYS := weekdays | weekends | wd ("," wd)* [","]     wd := NAME | NAME (".."|"-") NAME
///     DATE     := [YEAR "-"] MONTH ("-"|"~") DAY    (`~`: DAY counts back from the month's end)
///     TIME     := HOUR ":" MINUTE [":" SECOND]       (no TIME: 00:00:00; no SECOND: 00)
///     each numeric component := "*" | item ("," item)*
///     item     := N | N ".." M | N "/" STEP | N ".." M "/" STEP | "*/" STEP
///
/// What systemd (252) refuses is refused too (`20/4:00`, whose repetition never repeats;
/// `00:00/60`; `*` in a list; `10..8:00`; `*-*~29`), except our extensions: weekday ranges that
/// wrap around the week (`Fri..Mon`, which systemd refuses), `weekdays`, `weekends`, `daily TIME`,
/// `*/STEP`, spaces anywhere between and around words, zone names in any case. Refused as systemd
/// refuses them: control characters (a tab, a line break) anywhere. Refused with a
/// message of their own although systemd takes them: fractional seconds, `@` timestamps, and
/// expressions that never match (systemd takes those and never elapses).
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

    /// The first control character (Unicode's Cc: U+0000 to U+001F, U+007F to U+009F) and its
    /// column, as systemd refuses them: a tab, a line break or a NUL is never part of a calendar
    /// expression, however it got into one (a pasted line, a script's trailing newline).
    static func firstControl(_ text: String) -> (column: Int, name: String)? {
        // Printable ASCII (what expressions are) holds none: told without Unicode's tables.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return nil }
        var column = 1
        for ch in text {
            if let scalar = ch.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
                switch scalar {
                case "\t": return (column, "a tab")
                case "\n", "\r": return (column, "a line break")
                case "\0": return (column, "a NUL byte")
                default:
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    return (
                        column, "a control character (U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex))"
                    )
                }
            }
            column += 1
        }
        return nil
    }

    func fail(_ message: String, _ column: Int? = nil) -> ExpressionError {
        ExpressionError(message: message, expression: text, column: column)
    }

    /// The parts parsed so far; what is not written stays `*` (weekdays: all seven).
    private struct Parts {
        var weekdays = Self.allWeekdays
        var years = Self.all.years
        var months = Self.all.months
        var days = Self.all.days
        var endOfMonth = false
        var hours = Self.all.hours
        var minutes = Self.all.minutes
        var seconds = Self.all.minutes

        static let allWeekdays = ValueSet.all(CalendarExpression.weekdayRange)
        static let all = (
            years: CalendarComponent.all(CalendarExpression.yearRange),
            months: CalendarComponent.all(CalendarExpression.monthRange),
            days: CalendarComponent.all(CalendarExpression.dayRange),
            hours: CalendarComponent.all(CalendarExpression.hourRange),
            minutes: CalendarComponent.all(CalendarExpression.minuteRange)
        )

        /// 00:00:00, as a date without a time means.
        mutating func midnight() {
            hours = .single(0)
            minutes = .single(0)
            seconds = .single(0)
        }
    }

    /// systemd's shortcuts: what each stands for.
    private static func shortcut(_ name: String) -> Parts? {
        var p = Parts()
        switch name {
        case "minutely":
            p.seconds = .values([0], in: CalendarExpression.minuteRange)
        case "hourly":
            p.minutes = .values([0], in: CalendarExpression.minuteRange)
            p.seconds = .values([0], in: CalendarExpression.minuteRange)
        case "daily":
            p.midnight()
        case "weekly":
            p.weekdays = ValueSet([0])
            p.midnight()
        case "monthly":
            p.days = .values([1], in: CalendarExpression.dayRange)
            p.midnight()
        case "quarterly":
            p.months = .values([1, 4, 7, 10], in: CalendarExpression.monthRange)
            p.days = .values([1], in: CalendarExpression.dayRange)
            p.midnight()
        case "semiannually", "semi-annually", "biannually", "bi-annually":
            p.months = .values([1, 7], in: CalendarExpression.monthRange)
            p.days = .values([1], in: CalendarExpression.dayRange)
            p.midnight()
        case "yearly", "annually", "anually":
            p.months = .values([1], in: CalendarExpression.monthRange)
            p.days = .values([1], in: CalendarExpression.dayRange)
            p.midnight()
        default:
            return nil
        }
        return p
    }

    /// What a word is: a name (weekdays, a shortcut, a zone) starts with a letter; dates and
    /// times are the rest, told apart as systemd does: a `:` makes a time, else `-` or `~` a date.
    private enum Word { case name, date, time, other }

    private static func kind(_ s: Substring) -> Word {
        guard let first = s.utf8.first else { return .other }
        if (first | 0x20) >= UInt8(ascii: "a") && (first | 0x20) <= UInt8(ascii: "z") { return .name }
        if s.utf8.contains(UInt8(ascii: ":")) { return .time }
        if s.utf8.contains(UInt8(ascii: "-")) || s.utf8.contains(UInt8(ascii: "~")) { return .date }
        return .other
    }

    func parse() throws -> CalendarExpression {
        if let (column, name) = Self.firstControl(text) {
            throw fail("it holds \(name): write it on one line, its words separated by spaces", column)
        }
        guard !tokens.isEmpty else { throw fail("the expression is empty; write e.g. 'Mon..Fri 06:30'") }
        guard text.count <= 256 else { throw fail("the expression is longer than 256 characters") }
        if let at = tokens.first(where: { $0.text.hasPrefix("@") }) {
            throw fail("'@' timestamps are not supported: for one instant use 'alarm add --at RFC3339'", at.column)
        }
        var i = 0
        var parts: Parts
        var shortcut: Parts? = nil
        let first = tokens[0]
        let firstLower = first.text.lowercased()
        if let p = Self.shortcut(firstLower) {
            parts = p
            shortcut = p
            i = 1
            if i < tokens.count && Self.kind(tokens[i].text) != .name {
                let next = tokens[i]
                // Our extension: `daily 06:45` is 06:45 every day.
                guard firstLower == "daily" else {
                    throw fail(
                        "'\(first.text)' stands alone (it is '\(Self.normalForm(p))'); only a zone may follow it",
                        next.column)
                }
                guard Self.kind(next.text) == .time else {
                    throw fail("'\(first.text)' takes a time only, not a date", next.column)
                }
                (parts.hours, parts.minutes, parts.seconds) = try parseTime(next.text, column: next.column)
                i += 1
            }
        } else {
            parts = Parts()
            if Self.kind(first.text) == .name {
                parts.weekdays = try parseWeekdays(first.text, column: first.column)
                i = 1
            }
            var dated = false
            var timed = false
            if i < tokens.count && Self.kind(tokens[i].text) == .date {
                let t = tokens[i]
                (parts.years, parts.months, parts.days, parts.endOfMonth) = try parseDate(t.text, column: t.column)
                dated = true
                i += 1
            }
            if i < tokens.count && Self.kind(tokens[i].text) == .time {
                let t = tokens[i]
                (parts.hours, parts.minutes, parts.seconds) = try parseTime(t.text, column: t.column)
                timed = true
                i += 1
            }
            if i < tokens.count && Self.kind(tokens[i].text) != .name {
                let t = tokens[i]
                if timed { throw fail("unexpected '\(t.text)' after the time", t.column) }
                if dated {
                    throw fail("expected a time HOUR:MINUTE[:SECOND] after the date, found '\(t.text)'", t.column)
                }
                throw fail(
                    "expected a date [YEAR-]MONTH-DAY or a time HOUR:MINUTE[:SECOND] here, found '\(t.text)'", t.column)
            }
            if !timed { parts.midnight() }
        }

        var zone: String? = nil
        if i < tokens.count {
            let z = tokens[i]
            do {
                zone = try Zones.canonicalName(String(z.text))
            } catch {
                if let shortcut, i == 1 {
                    throw fail(
                        "'\(first.text)' stands alone (it is '\(Self.normalForm(shortcut))'); only a zone may follow it, and '\(z.text)' is none",
                        z.column)
                }
                if Self.weekdayNames[z.text.lowercased()] != nil {
                    throw fail("weekdays are one word, without blanks: e.g. 'Mon,Wed' or 'Mon..Fri'", z.column)
                }
                throw fail("unknown time zone '\(z.text)': use an IANA name such as Europe/Berlin, or UTC", z.column)
            }
            i += 1
        }
        if i < tokens.count {
            throw fail("unexpected '\(tokens[i].text)' after the zone", tokens[i].column)
        }

        let expr = CalendarExpression(
            weekdays: parts.weekdays, years: parts.years, months: parts.months, days: parts.days,
            endOfMonth: parts.endOfMonth,
            hours: parts.hours, minutes: parts.minutes, seconds: parts.seconds, zone: zone)
        if let why = Schedule.whyNeverMatches(expr) { throw fail(why) }
        return expr
    }

    private static func normalForm(_ p: Parts) -> String {
        CalendarExpression(
            weekdays: p.weekdays, years: p.years, months: p.months, days: p.days, endOfMonth: p.endOfMonth,
            hours: p.hours,
            minutes: p.minutes, seconds: p.seconds
        ).print(withZone: false)
    }

    // MARK: weekdays

    /// `Mon,Wed..Fri`, `Mon-Wed` (systemd's older range), a trailing comma, `weekdays`, `weekends`.
    private func parseWeekdays(_ token: Substring, column: Int) throws -> ValueSet {
        switch token.lowercased() {
        case "weekdays": return ValueSet(0...4)
        case "weekends": return ValueSet([5, 6])
        default: break
        }
        var set = ValueSet()
        var items = token.split(separator: ",", omittingEmptySubsequences: false)
        if items.count > 1 && items.last!.isEmpty { items.removeLast() }  // "Wed, 17:48"
        var col = column
        for item in items {
            let range = Self.dots(in: item) ?? item.firstIndex(of: "-").map { $0..<item.index(after: $0) }
            if let r = range {
                let a = try weekday(item[..<r.lowerBound], column: col)
                let rest = item[r.upperBound...]
                let restColumn = col + item.distance(from: item.startIndex, to: r.upperBound)
                if Self.dots(in: rest) != nil || rest.contains("-") {
                    throw fail("a weekday range is NAME..NAME, found '\(item)'", col)
                }
                let b = try weekday(rest, column: restColumn)
                // Our extension: ranges may wrap around the week, Fri..Mon is Fri, Sat, Sun, Mon.
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
            ["mon", "monday"], ["tue", "tuesday"], ["wed", "wednesday"], ["thu", "thursday"], ["fri", "friday"],
            ["sat", "saturday"], ["sun", "sunday"],
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

    // MARK: date and time

    private func parseDate(
        _ token: Substring, column: Int
    ) throws
        -> (CalendarComponent, CalendarComponent, CalendarComponent, Bool)
    {
        // The parts and the separator before each.
        var parts: [(text: Substring, separator: UInt8, column: Int)] = []
        var start = token.startIndex
        var separator: UInt8 = 0
        var col = column
        var partColumn = column
        var i = token.startIndex
        while i < token.endIndex {
            let b = token.utf8[i]
            if b == UInt8(ascii: "-") || b == UInt8(ascii: "~") {
                parts.append((token[start..<i], separator, partColumn))
                separator = b
                start = token.index(after: i)
                partColumn = col + 1
            }
            i = token.index(after: i)
            col += 1
        }
        parts.append((token[start...], separator, partColumn))
        guard parts.count == 2 || parts.count == 3 else {
            throw fail(
                "a date is [YEAR-]MONTH-DAY (or MONTH~DAY, counted from the month's end), found '\(token)'", column)
        }
        let tilde = UInt8(ascii: "~")
        if parts.count == 3 && parts[1].separator == tilde {
            throw fail("'~' goes between the month and the day, as in '*-02~01', found '\(token)'", parts[1].column - 1)
        }
        let endOfMonth = parts.last!.separator == tilde
        var years = CalendarComponent.all(CalendarExpression.yearRange)
        if parts.count == 3 {
            years = try component(parts[0].text, .year, column: parts[0].column)
        }
        let m = parts[parts.count - 2]
        let d = parts[parts.count - 1]
        let months = try component(m.text, .month, column: m.column)
        let days = try component(d.text, endOfMonth ? .dayFromEnd : .day, column: d.column)
        return (years, months, days, endOfMonth && !days.isAll)
    }

    private func parseTime(
        _ token: Substring, column: Int
    ) throws -> (CalendarComponent, CalendarComponent, CalendarComponent) {
        let parts = token.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3 else {
            throw fail("a time is HOUR:MINUTE[:SECOND], found '\(token)'", column)
        }
        var col = column
        let hours = try component(parts[0], .hour, column: col)
        col += parts[0].count + 1
        let minutes = try component(parts[1], .minute, column: col)
        col += parts[1].count + 1
        let seconds =
            parts.count == 3
            ? try component(parts[2], .second, column: col) : CalendarComponent.single(0)
        return (hours, minutes, seconds)
    }
}
