import FoundationEssentials

/// The days alarms with `--skip-holidays` do not ring on (`holidays = FILE` in the config), with
/// each day's name. A value: parsed from the file's text by `HolidayCalendar.parse` (no I/O
/// here), handed to the engine, `alarm list`, `next` and `preview`.
///
/// Yearly rules (an iCalendar RRULE) are expanded once, over the years alarms can have
/// (`CalendarExpression.yearRange`), so a look-up is one dictionary access however the file
/// says it.
public struct HolidayCalendar: Equatable, Sendable {
    /// Days since 1970-01-01 → the names of that day's holidays, joined with ", " ("" when the
    /// file gives none).
    public private(set) var days: [Int64: String] = [:]

    public static let empty = HolidayCalendar()

    public init() {}

    public var isEmpty: Bool { days.isEmpty }
    public var count: Int { days.count }

    /// The holiday on the date `t` has in `zone`: its name ("" when unnamed), or nil.
    public func holiday(at t: Date, in zone: Zone) -> String? {
        days[Alarm.localDay(t, zone)]
    }

    /// The holiday on a civil date, or nil.
    public func holiday(on c: CivilTime) -> String? {
        days[CivilTime.days(year: c.year, month: c.month, day: c.day)]
    }

    /// Adds the day `day` (days since 1970) under `name`; a day named twice keeps both names.
    mutating func add(_ day: Int64, _ name: String) {
        if let old = days[day] {
            if old.isEmpty || old == name || old.split(separator: ",").contains(where: { $0.trimmingBlanks() == name })
            {
                days[day] = old.isEmpty ? name : old
            } else if !name.isEmpty {
                days[day] = old + ", " + name
            }
        } else {
            days[day] = name
        }
    }

    /// What a skipped occurrence's history entry says: `holiday: Christmas Day`.
    public static func reason(_ name: String, on t: Date, in zone: Zone) -> String {
        name.isEmpty ? "holiday: \(Zones.civil(at: t, in: zone).date) is in the holidays file" : "holiday: \(name)"
    }

    /// Parses a holidays file: an iCalendar file (it starts with `BEGIN:VCALENDAR`, or its name
    /// ends in `.ics`), else the plain format: one `YYYY-MM-DD` or `YYYY-MM-DD..YYYY-MM-DD` per
    /// line, optionally followed by a name; `#` starts a comment. Throws `HolidayFileError` with
    /// the line and the reason.
    public static func parse(_ text: String, fileName: String = "") throws(HolidayFileError) -> HolidayCalendar {
        let lines = physicalLines(text)
        let first = lines.first { !$0.trimmingBlanks().isEmpty }?.trimmingBlanks().uppercased() ?? ""
        if fileName.lowercased().hasSuffix(".ics") || first.hasPrefix("BEGIN:VCALENDAR") {
            return try ICalendarHolidays.parse(lines)
        }
        return try PlainHolidays.parse(lines)
    }

    /// The lines of `text`, split at LF with a CR before it dropped, a byte-order mark at the
    /// start too. (Split as bytes: to `String`, CR LF is one character, not a "\n".)
    static func physicalLines(_ text: String) -> [String] {
        var bytes = Array(text.utf8)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        return bytes.split(separator: 10, omittingEmptySubsequences: false).map { line in
            String(decoding: line.last == 13 ? line.dropLast() : line, as: UTF8.self)
        }
    }
}

/// Why a holidays file was refused: the line (1-based, nil for the file as a whole) and the reason.
public struct HolidayFileError: Error, Equatable, CustomStringConvertible {
    public var line: Int?
    public var message: String

    public init(line: Int?, _ message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { line.map { "line \($0): \(message)" } ?? message }
}

/// The plain format: `2026-12-25 Christmas Day`, `2026-12-24..2027-01-06 school holidays`, `# ...`.
enum PlainHolidays {
    static func parse(_ lines: [String]) throws(HolidayFileError) -> HolidayCalendar {
        var calendar = HolidayCalendar()
        for (n, raw) in lines.enumerated() {
            let line = Substring(raw)
            // `#` starts a comment at the start of a line or after a blank.
            var cut = line.endIndex
            var previous: Character = " "
            for i in line.indices {
                if line[i] == "#" && (previous == " " || previous == "\t") {
                    cut = i
                    break
                }
                previous = line[i]
            }
            let content = line[..<cut].trimmingBlanks()
            if content.isEmpty { continue }
            let fields = content.split(maxSplits: 1, whereSeparator: { $0 == " " || $0 == "\t" })
            let when = String(fields[0])
            let name = fields.count > 1 ? fields[1].trimmingBlanks() : ""
            func fail(_ m: String) -> HolidayFileError { HolidayFileError(line: n + 1, m) }
            let parts = when.split(separator: "..", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { throw fail("'\(when)' is not a date or a range YYYY-MM-DD..YYYY-MM-DD") }
            let first = try day(String(parts[0]), line: n + 1)
            let last = parts.count == 2 ? try day(String(parts[1]), line: n + 1) : first
            guard last >= first else { throw fail("the range '\(when)' ends before it starts") }
            for d in first...last { calendar.add(d, name) }
        }
        return calendar
    }

    /// `YYYY-MM-DD` as days since 1970.
    static func day(_ text: String, line: Int) throws(HolidayFileError) -> Int64 {
        let b = Array(text.utf8)
        func digits(_ r: Range<Int>) -> Int? {
            var v = 0
            for k in r {
                guard b[k] >= 48 && b[k] <= 57 else { return nil }
                v = v * 10 + Int(b[k] - 48)
            }
            return v
        }
        guard b.count == 10, b[4] == 45, b[7] == 45, let y = digits(0..<4), let m = digits(5..<7),
            let d = digits(8..<10)
        else {
            throw HolidayFileError(
                line: line,
                "'\(text)' is not a date: write YYYY-MM-DD, or a range YYYY-MM-DD..YYYY-MM-DD, then the name")
        }
        guard CalendarExpression.yearRange.contains(y) else {
            throw HolidayFileError(
                line: line,
                "'\(text)': the year must be within \(CalendarExpression.yearRange.lowerBound)..\(CalendarExpression.yearRange.upperBound)"
            )
        }
        guard (1...12).contains(m) else { throw HolidayFileError(line: line, "'\(text)': there is no month \(m)") }
        let last = CivilTime.daysIn(month: m, year: y)
        guard d >= 1, d <= last else {
            throw HolidayFileError(line: line, "'\(text)' is not a date: \(Self.monthName(m)) \(y) has \(last) days")
        }
        return CivilTime.days(year: y, month: m, day: d)
    }

    static func monthName(_ m: Int) -> String {
        [
            "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
            "November", "December",
        ][m - 1]
    }
}
