import FoundationEssentials

/// Holidays from an iCalendar file (RFC 5545), as calendar apps export public holidays: the
/// all-day VEVENTs (`DTSTART;VALUE=DATE`), with `DTEND` or `DURATION`, `SUMMARY` as the name,
/// yearly `RRULE`s (`FREQ=YEARLY` with `INTERVAL`, `COUNT`, `UNTIL`, `BYMONTH`, `BYMONTHDAY`,
/// `BYDAY`), `RDATE` and `EXDATE` dates; cancelled events (`STATUS:CANCELLED`) are left out.
/// Folded lines are unfolded and text is unescaped. Everything else a calendar holds
/// (VTIMEZONE, VALARM, other properties) is passed over.
///
/// Refused, with the line and the reason: a file that is not iCalendar or is cut short, an
/// event with a time of day (it is not a holiday but an appointment), a rule that is not yearly
/// or uses other parts: better say so than skip the wrong days.
enum ICalendarHolidays {
    struct Line {
        var number: Int
        var name: String
        var params: [String: String]
        var value: String
    }

    static func parse(_ physical: [String]) throws(HolidayFileError) -> HolidayCalendar {
        let firstLine = (physical.firstIndex { !$0.trimmingBlanks().isEmpty } ?? 0)
        guard physical.indices.contains(firstLine),
            physical[firstLine].trimmingBlanks().uppercased() == "BEGIN:VCALENDAR"
        else {
            throw HolidayFileError(line: firstLine + 1, "an iCalendar file starts with BEGIN:VCALENDAR")
        }
        let lines = try unfold(physical)
        var calendar = HolidayCalendar()
        var stack: [(name: String, line: Int)] = []
        var event: [Line] = []
        var eventLine = 0
        for line in lines {
            switch line.name {
            case "BEGIN":
                let name = line.value.uppercased()
                stack.append((name, line.number))
                if name == "VEVENT" && stack.count == 2 {
                    event = []
                    eventLine = line.number
                }
            case "END":
                let name = line.value.uppercased()
                guard let open = stack.popLast() else {
                    throw HolidayFileError(line: line.number, "END:\(line.value) closes nothing")
                }
                guard open.name == name else {
                    throw HolidayFileError(
                        line: line.number, "END:\(line.value) does not close BEGIN:\(open.name) of line \(open.line)")
                }
                if name == "VEVENT" && stack.count == 1 { try add(event, beginning: eventLine, to: &calendar) }
            default:
                if stack.count == 2 && stack[1].name == "VEVENT" { event.append(line) }
            }
            if stack.isEmpty && line.name == "END" { break }
        }
        if let open = stack.last {
            throw HolidayFileError(line: open.line, "BEGIN:\(open.name) is never closed: the file is cut short")
        }
        return calendar
    }

    // MARK: lines

    /// Content lines, unfolded (a line starting with a space or a tab continues the one before),
    /// each with the number of its first physical line.
    static func unfold(_ physical: [String]) throws(HolidayFileError) -> [Line] {
        var raw: [(Int, String)] = []
        for (n, s) in physical.enumerated() {
            if let c = s.first, c == " " || c == "\t", !raw.isEmpty {
                raw[raw.count - 1].1 += s.dropFirst()
            } else if !s.isEmpty {
                raw.append((n + 1, String(s)))
            }
        }
        var out: [Line] = []
        out.reserveCapacity(raw.count)
        for (number, text) in raw { out.append(try contentLine(text, number: number)) }
        return out
    }

    /// `NAME;PARAM=value;PARAM="quoted:value":VALUE`.
    static func contentLine(_ text: String, number: Int) throws(HolidayFileError) -> Line {
        let chars = Array(text)
        var i = 0
        while i < chars.count, chars[i] != ";" && chars[i] != ":" { i += 1 }
        let name = String(chars[0..<i]).uppercased()
        guard i < chars.count, !name.isEmpty else {
            throw HolidayFileError(line: number, "'\(text.prefix(40))' is not an iCalendar content line (NAME:VALUE)")
        }
        var params: [String: String] = [:]
        while i < chars.count, chars[i] == ";" {
            i += 1
            var key = ""
            while i < chars.count, chars[i] != "=" && chars[i] != ":" && chars[i] != ";" {
                key.append(chars[i])
                i += 1
            }
            var value = ""
            if i < chars.count, chars[i] == "=" {
                i += 1
                var quoted = false
                while i < chars.count, quoted || (chars[i] != ";" && chars[i] != ":") {
                    if chars[i] == "\"" { quoted.toggle() } else { value.append(chars[i]) }
                    i += 1
                }
            }
            params[key.uppercased()] = value
        }
        guard i < chars.count, chars[i] == ":" else {
            throw HolidayFileError(line: number, "'\(text.prefix(40))' has no ':' before its value")
        }
        return Line(number: number, name: name, params: params, value: String(chars[(i + 1)...]))
    }

    // MARK: events

    static func add(_ lines: [Line], beginning: Int, to calendar: inout HolidayCalendar) throws(HolidayFileError) {
        var start: (day: Int64, line: Int)?
        var span: Int64 = 1
        var end: Line?
        var name = ""
        var rule: Line?
        var extra: [Int64] = []
        var excluded = Set<Int64>()
        for line in lines {
            switch line.name {
            case "DTSTART": start = (try date(line), line.number)
            case "DTEND": end = line
            case "DURATION": span = try duration(line)
            case "SUMMARY": name = unescape(line.value)
            case "RRULE":
                guard rule == nil else {
                    throw HolidayFileError(line: line.number, "an event with two RRULEs is not read")
                }
                rule = line
            case "RDATE": extra += try dates(line)
            case "EXDATE": excluded.formUnion(try dates(line))
            case "STATUS" where line.value.uppercased() == "CANCELLED": return
            default: break
            }
        }
        guard let start else { throw HolidayFileError(line: beginning, "this VEVENT has no DTSTART") }
        if let end {
            let last = try date(end)
            guard last >= start.day else {
                throw HolidayFileError(line: end.number, "DTEND \(end.value) is before DTSTART")
            }
            span = max(1, last - start.day)  // DTEND is the day after the last (a one-day event: +1)
        }
        var starts = [start.day] + extra
        if let rule { starts += try YearlyRule(rule, start: start.day).expand() }
        for s in starts where !excluded.contains(s) {
            for d in s..<(s + span) where inRange(d) { calendar.add(d, name) }
        }
    }

    static let firstDay = CivilTime.days(year: CalendarExpression.yearRange.lowerBound, month: 1, day: 1)
    static let lastDay = CivilTime.days(year: CalendarExpression.yearRange.upperBound, month: 12, day: 31)
    static func inRange(_ d: Int64) -> Bool { d >= firstDay && d <= lastDay }

    /// A DATE value (`20261225`) as days since 1970; a DATE-TIME is refused.
    static func date(_ line: Line) throws(HolidayFileError) -> Int64 {
        let v = line.value.trimmingBlanks()
        if v.contains("T") || v.contains("t") || line.params["VALUE"].map({ $0.uppercased() == "DATE-TIME" }) == true {
            throw HolidayFileError(
                line: line.number,
                "\(line.name) '\(v)' has a time of day: only all-day events (\(line.name);VALUE=DATE:YYYYMMDD) are read as holidays"
            )
        }
        return try day(v, line: line)
    }

    static func dates(_ line: Line) throws(HolidayFileError) -> [Int64] {
        var out: [Int64] = []
        for part in line.value.split(separator: ",") {
            var one = line
            one.value = String(part)
            out.append(try date(one))
        }
        return out
    }

    /// `YYYYMMDD` (the first eight characters of a DATE-TIME for UNTIL).
    static func day(_ text: String, line: Line) throws(HolidayFileError) -> Int64 {
        let b = Array(text.utf8)
        var v = [Int]()
        for c in b.prefix(8) {
            guard c >= 48 && c <= 57 else { break }
            v.append(Int(c - 48))
        }
        guard v.count == 8, b.count == 8 || b.count > 8 && b[8] == UInt8(ascii: "T") else {
            throw HolidayFileError(line: line.number, "\(line.name) '\(text)' is not a date (YYYYMMDD)")
        }
        let y = v[0] * 1000 + v[1] * 100 + v[2] * 10 + v[3]
        let m = v[4] * 10 + v[5]
        let d = v[6] * 10 + v[7]
        guard (1...12).contains(m), d >= 1, d <= CivilTime.daysIn(month: m, year: y) else {
            throw HolidayFileError(line: line.number, "\(line.name) '\(text)' is not a date of the calendar")
        }
        return CivilTime.days(year: y, month: m, day: d)
    }

    /// `DURATION:P1D`, `P2W`: whole days.
    static func duration(_ line: Line) throws(HolidayFileError) -> Int64 {
        let v = line.value.trimmingBlanks().uppercased()
        let body = v.hasPrefix("+P") ? v.dropFirst(2) : v.hasPrefix("P") ? v.dropFirst() : ""
        guard let unit = body.last, unit == "D" || unit == "W", let n = Int64(body.dropLast()), n > 0 else {
            throw HolidayFileError(
                line: line.number, "DURATION '\(line.value)' is not a whole number of days (P1D) or weeks (P1W)")
        }
        return unit == "W" ? n * 7 : n
    }

    /// TEXT values: `\,` `\;` `\\` and `\n` (as a space: a name is one line).
    static func unescape(_ text: String) -> String {
        var out = ""
        var escape = false
        for c in text {
            if escape {
                out.append(c == "n" || c == "N" ? " " : c)
                escape = false
            } else if c == "\\" {
                escape = true
            } else {
                out.append(c)
            }
        }
        return out.trimmingBlanks()
    }
}
