/// The normal form as the alarm list writes it, read without the general parser: a store of
/// 10,000 alarms holds thousands of different expressions, each written by `print(withZone:
/// false)` (`Mon..Fri *-*-* 06:30:00`), and the general parser (tokens, words, lists) spent more
/// time on them than the rest of reading the store (issue #29).
///
/// It takes only the plainest normal forms, `[WEEKDAYS ]DATE HH:MM:SS` with `*` or single
/// numbers, and builds them with the very values the general parser builds for them; anything
/// else, an expression that never matches included, is left to the general parser (nil), which
/// reads it or says what is wrong.
extension ExpressionParser {
    static func normalForm(_ text: String) -> CalendarExpression? {
        var text = text
        return text.withUTF8 { normalForm(bytes: $0) }
    }

    private static func normalForm(bytes u: UnsafeBufferPointer<UInt8>) -> CalendarExpression? {
        guard u.count <= 256 else { return nil }
        var i = 0
        func byte(_ b: UInt8) -> Bool {
            guard i < u.count, u[i] == b else { return false }
            i += 1
            return true
        }
        /// Exactly `width` digits.
        func digits(_ width: Int) -> Int? {
            guard u.count - i >= width else { return nil }
            var v = 0
            for k in i..<i + width {
                guard u[k] >= 0x30 && u[k] <= 0x39 else { return nil }
                v = v * 10 + Int(u[k] - 0x30)
            }
            i += width
            return v
        }
        /// `*`, or one value of `width` digits in `range`: what `component` makes of them.
        func component(_ width: Int, _ range: ClosedRange<Int>) -> CalendarComponent? {
            if byte(UInt8(ascii: "*")) { return .all(range) }
            guard let v = digits(width), range.contains(v) else { return nil }
            return range.upperBound < 64
                ? .single(v) : CalendarComponent(items: [.init(start: v)], range: range, fromEnd: false)
        }
        /// `Mon`...`Sun` as `CalendarExpression.writeWeekdays` writes them.
        func weekday() -> Int? {
            guard u.count - i >= 3 else { return nil }
            for (d, name) in CalendarExpression.weekdayNames.enumerated() where name.utf8.elementsEqual(u[i..<i + 3]) {
                i += 3
                return d
            }
            return nil
        }

        var weekdays = ValueSet.all(CalendarExpression.weekdayRange)
        if i < u.count, u[i] >= UInt8(ascii: "A") && u[i] <= UInt8(ascii: "Z") {
            weekdays = ValueSet()
            repeat {
                guard let first = weekday() else { return nil }
                var last = first
                if byte(UInt8(ascii: ".")) {
                    guard byte(UInt8(ascii: ".")), let end = weekday(), end > first else { return nil }
                    last = end
                }
                for d in first...last { weekdays.insert(d) }
            } while byte(UInt8(ascii: ","))
            guard byte(UInt8(ascii: " ")) else { return nil }
        }
        guard let years = component(4, CalendarExpression.yearRange), byte(UInt8(ascii: "-")),
            let months = component(2, CalendarExpression.monthRange)
        else { return nil }
        let endOfMonth = byte(UInt8(ascii: "~"))
        guard endOfMonth || byte(UInt8(ascii: "-")), let days = component(2, CalendarExpression.dayRange),
            !(endOfMonth && days.isSingle && days.values.min! > 28),
            byte(UInt8(ascii: " ")), let hours = component(2, CalendarExpression.hourRange), byte(UInt8(ascii: ":")),
            let minutes = component(2, CalendarExpression.minuteRange), byte(UInt8(ascii: ":")),
            let seconds = component(2, CalendarExpression.minuteRange), i == u.count
        else { return nil }
        let expr = CalendarExpression(
            weekdays: weekdays, years: years, months: months, days: days, endOfMonth: endOfMonth, hours: hours,
            minutes: minutes, seconds: seconds)
        return Schedule.whyNeverMatches(expr) == nil ? expr : nil
    }
}
